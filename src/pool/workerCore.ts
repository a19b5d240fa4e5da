/**
 * What a verification worker does with one task: the verification core, with the collateral of
 * the report's kind asked of the main thread when the report reaches its collateral step
 * (collateralPort.ts; reused for a while: collateralReuse.ts) and verified (once per collateral
 * version) in the worker by the kind's collateral port. A batch task (several reports) hashes their
 * userData in one call first. Each result goes back with the task's stamps (stages.ts). A report
 * asked for its answer (`answer`: POST /decodeReport) goes back as its answer's bytes and the
 * outcome's facts (decodeReportAnswer.ts); answerBuffers() lists those bytes for the transfer.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { hashReportDataMany } from '../hash/index.js';
import { requestKeysOf } from '../encoding/eras/index.js';
import { verifyReportBytes, type VerifyDeps } from '../verify/verifyReport.js';
import { checkAttestationResponse } from '../verify/attestationResponse.js';
import { decodeReportAnswer } from '../verify/decodeReportAnswer.js';
import { findReportKind, REPORT_TYPES, type CollateralSource } from '../verify/kinds/index.js';
import type { Policy, ReportAnswer, ReportCheck, ReportType, ReportVerifier, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';
import { CollateralLine } from './collateralPort.js';
import { CollateralReuse, reuseKey } from './collateralReuse.js';
import { epochMs, gcPauseLog, type StampedResult } from './stages.js';

/**
 * The binding hashes of the items' userData in one call, and the hash time per item; no hashes
 * when one cannot be hashed (a bad length: each item then hashes, or fails, on its own).
 */
function batchHashes(items: readonly { userData: Uint8Array }[]): { hashes: (Uint8Array | undefined)[]; secondsEach?: number } {
  const t0 = performance.now();
  try {
    const hashes = hashReportDataMany(items.map((i) => i.userData));
    return { hashes, secondsEach: (performance.now() - t0) / 1000 / Math.max(1, items.length) };
  } catch {
    return { hashes: items.map(() => undefined) };
  }
}

export type WorkerResult = VerifyOutcome | ReportAnswer | ReportCheck | (VerifyOutcome | ReportAnswer)[];

const isAnswer = (r: unknown): r is ReportAnswer => typeof r === 'object' && r !== null && (r as Partial<ReportAnswer>).body instanceof Uint8Array;

/** The buffers of the answers in a result (each its own ArrayBuffer): transferred, not copied, to the main thread. */
export function answerBuffers(result: WorkerResult): ArrayBuffer[] {
  const all = Array.isArray(result) ? result : [result];
  return all.filter(isAnswer).map((a) => a.body.buffer as ArrayBuffer);
}

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<StampedResult<WorkerResult>> {
  const roots = Object.fromEntries(REPORT_TYPES.map((id) => [id, parseCertificate(setup.roots[id])])) as Record<ReportType, Certificate>;
  const policy: Policy = setup.policy;
  const chainCache = new ChainCache();
  const keyCache = new LRUCache<string, KeyObject>({ max: 1024 });
  const verified = new LRUCache<string, object>({ max: 64 });
  const gcPauses = gcPauseLog();
  const reuse = new CollateralReuse(setup.collateralReuseMs ?? 0);
  const line = setup.collateralChannel !== undefined ? new CollateralLine(setup.collateralChannel, () => reuse.clear()) : undefined;

  /**
   * The collateral of `report`'s kind: the worker's reused copy (collateralReuse.ts), or asked of
   * the main thread under the task's ticket; `waited` adds the seconds spent waiting for it. With
   * `asOf`, the history collateral that judges the report as it stood then (the kind's verifyAsOf).
   */
  const collateralFor = (report: Uint8Array, ticket: number | undefined, waited: (s: number) => void, asOf?: number): CollateralSource | undefined => {
    const kind = findReportKind(report);
    const c = kind?.collateral;
    if (!kind || !c) return undefined;
    const ask = async (subject: unknown) => {
      if (asOf !== undefined && !setup.collateralAsOf) throw c.unavailableAsOf(asOf);
      if (!line || ticket === undefined) throw asOf === undefined ? c.unavailable() : c.unavailableAsOf(asOf);
      const t0 = performance.now();
      return line.request(ticket, subject, asOf).finally(() => waited((performance.now() - t0) / 1000));
    };
    if (asOf !== undefined) {
      // History collateral judges one time (each update's own): asked and verified per report,
      // kept out of the reuse and verified caches, where it would only push out the current collateral.
      return { forReport: async (parsed, time) => c.verifyAsOf(unpackCollateral(await ask(c.subject(parsed as never))), roots[kind.id], time) };
    }
    return {
      async forReport(parsed, time) {
        // the worker's copy while its window is open, else the main thread's answer
        const subject = c.subject(parsed as never);
        const at = reuseKey(kind.id, subject);
        let pack = reuse.get(at);
        if (!pack) {
          pack = await ask(subject);
          reuse.set(at, pack);
        }
        const key = `${kind.id}:${pack.version}`;
        const hit = verified.get(key);
        if (hit) return hit;
        const vc = c.verify(unpackCollateral(pack), roots[kind.id], time);
        verified.set(key, vc);
        return vc;
      },
    };
  };

  return async (task) => {
    const startedAt = epochMs();
    const t0 = performance.now();
    let collateralWait: number | undefined;
    const waited = (s: number) => (collateralWait = (collateralWait ?? 0) + s);
    const result = await run(task, waited);
    const stamps = { startedAt, runSeconds: (performance.now() - t0) / 1000, gcPauses: gcPauses(), ...(collateralWait !== undefined ? { collateralWaitSeconds: collateralWait } : {}) };
    return { result, stamps };
  };

  async function run(task: VerifyTask, waited: (s: number) => void): Promise<WorkerResult> {
    const verify: ReportVerifier = (userData, report, o) => {
      // Judged as of a past time, the report's collateral is its history collateral.
      const source = collateralFor(report, task.collateralTicket, waited, o?.asOf);
      const deps: VerifyDeps = {
        roots,
        chainCache,
        keyCache,
        ...(source ? (o?.asOf === undefined ? { collateral: source } : { historyCollateral: source }) : {}),
        ...(setup.time !== undefined ? { time: setup.time } : {}),
      };
      return verifyReportBytes(userData, report, policy, deps, o);
    };
    try {
      if (task.op === 'response') return await checkAttestationResponse(task.entry, verify);
      if (task.op === 'bytesMany') {
        const { hashes, secondsEach } = batchHashes(task.items);
        const outs: (VerifyOutcome | ReportAnswer)[] = [];
        for (const [i, it] of task.items.entries()) {
          const h = hashes[i];
          const out = await verify(it.userData, it.report, { ...(it.nonce ? { nonce: it.nonce } : {}), ...(h ? { userDataHash: h } : {}), ...(it.asOf !== undefined ? { asOf: it.asOf } : {}) });
          // The hash was computed (in the batch): its share of the batch's hash time, for verifier_hash_seconds.
          if (h && secondsEach !== undefined && out.timings?.hashSeconds === undefined) out.timings = { ...out.timings, hashSeconds: secondsEach };
          if (it.requestKeys !== undefined) {
            try {
              out.requestKeys = requestKeysOf(it.userData, it.requestKeys);
            } catch {
              /* left to the caller, which computes them (and meets the same failure) itself */
            }
          }
          outs.push(it.answer ? decodeReportAnswer(out) : out);
        }
        return outs;
      }
      const out = await verify(task.userData, task.report, task.nonce ? { nonce: task.nonce } : {});
      return task.answer ? decodeReportAnswer(out) : out;
    } finally {
      if (task.collateralTicket !== undefined) line?.forget(task.collateralTicket);
    }
  }
}
