/**
 * The TCB evaluation in force at a time T, under a TCB update policy, decided from Intel's signed
 * lists of TCB evaluation data numbers (tcbEvaluations.ts) — or "undecidable", with why, never a
 * guess.
 *
 * Policies (Intel PCS v4, the `update` parameter of TCB info and QE identity):
 * - `early`: an evaluation is in force from its TCB recovery event date (the day of disclosure);
 * - `standard` (the PCS default when `update` is absent): from 12 calendar months after that date,
 *   the delay Intel documents between the two channels.
 * The evaluation in force at T is the highest-numbered one in force at T. It is decided only when
 * the lists at hand rule out every other answer: the numbers up to it have no gap, the next one
 * (when listed) starts after T, and a list issued late enough to include any later evaluation that
 * could have started by T is at hand.
 */
import type { TcbEvaluation, TcbEvaluationList } from './tcbEvaluations.js';
import { iso } from './json.js';

export const TCB_UPDATE_POLICIES = ['early', 'standard'] as const;
export type TcbUpdatePolicy = (typeof TCB_UPDATE_POLICIES)[number];

/** `ms` plus `months` calendar months (UTC; a day past the month's end rolls into the next). */
function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** When `e` comes into force under `policy` (epoch ms). */
export function inForceFrom(e: TcbEvaluation, policy: TcbUpdatePolicy): number {
  return policy === 'early' ? e.recoveryEventDate : addMonths(e.recoveryEventDate, 12);
}

/** The latest recovery date an evaluation in force at `at` can have. */
function latestStart(at: number, policy: TcbUpdatePolicy): number {
  return policy === 'early' ? at : addMonths(at, -12);
}

export type InForce = { readonly number: number; readonly from: number; readonly evaluation: TcbEvaluation } | { readonly undecidable: string };

export function evaluationInForce(lists: readonly TcbEvaluationList[], at: number, policy: TcbUpdatePolicy): InForce {
  if (!Number.isFinite(at)) return { undecidable: `the time ${String(at)} is not a time` };
  if (lists.length === 0) return { undecidable: 'no signed list of TCB evaluation data numbers is at hand' };
  // Every list's entries, merged; Intel's signed lists must agree on an evaluation's dates.
  const known = new Map<number, TcbEvaluation>();
  for (const list of lists) {
    for (const e of list.evaluations) {
      const seen = known.get(e.number);
      if (seen && (seen.recoveryEventDate !== e.recoveryEventDate || seen.tcbDate !== e.tcbDate)) {
        return { undecidable: `two signed lists disagree on the dates of evaluation ${e.number}` };
      }
      known.set(e.number, e);
    }
  }
  const numbers = [...known.keys()].sort((a, b) => a - b);
  for (let i = 1; i < numbers.length; i++) {
    const [a, b] = [known.get(numbers[i - 1]!)!, known.get(numbers[i]!)!];
    if (b.recoveryEventDate < a.recoveryEventDate) return { undecidable: `evaluation ${b.number} has an earlier recovery date than evaluation ${a.number}` };
  }
  const oldest = known.get(numbers[0]!)!;
  const candidates = numbers.filter((n) => inForceFrom(known.get(n)!, policy) <= at);
  if (candidates.length === 0) {
    return { undecidable: `no evaluation at hand was in force at ${iso(at)} under update=${policy}: the oldest at hand, ${oldest.number}, is in force from ${iso(inForceFrom(oldest, policy))}; an older signed list is needed` };
  }
  const n = candidates.at(-1)!;
  const evaluation = known.get(n)!;
  if (!known.has(n + 1)) {
    const after = numbers.find((x) => x > n);
    if (after !== undefined) return { undecidable: `evaluation ${n + 1} is in no signed list at hand (the lists jump from ${n} to ${after}): it may have been in force at ${iso(at)}` };
    const covered = Math.max(...lists.map((l) => l.issueDate));
    const needed = latestStart(at, policy);
    if (covered < needed) {
      return { undecidable: `the newest signed list at hand was issued ${iso(covered)}: an evaluation after ${n} with a recovery date up to ${iso(needed)} would be in force at ${iso(at)} under update=${policy}; a list issued at or after ${iso(needed)} is needed` };
    }
  }
  return { number: n, from: inForceFrom(evaluation, policy), evaluation };
}
