/** Expected check traces: a plan run up to one failing check. */
import type { CheckResult } from '../../src/verify/checks.js';

export type TraceRow = [id: string, status: string, code?: string];

/** The checks of `plan` as rows: every one before `failed` passed, it failed with `code`, the rest were skipped. */
export function traceStoppingAt(plan: readonly string[], failed: string, code: string): TraceRow[] {
  const at = plan.indexOf(failed);
  if (at < 0) throw new Error(`check ${failed} is not in the plan`);
  return plan.map((id, i): TraceRow => (i < at ? [id, 'passed'] : i === at ? [id, 'failed', code] : [id, 'skipped']));
}

/** The rows of a trace (from the core or a JSON answer) for the checks of `plan`, in trace order. */
export function traceRows(checks: readonly Pick<CheckResult, 'id' | 'status' | 'code'>[], plan: readonly string[]): TraceRow[] {
  return checks.filter((c) => plan.includes(c.id)).map((c): TraceRow => (c.code === undefined ? [c.id, c.status] : [c.id, c.status, c.code]));
}
