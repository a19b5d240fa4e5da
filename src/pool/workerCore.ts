/**
 * What a verification worker does with one task: the verification core, with the collateral of
 * the report's kind asked of the main thread when the report reaches its collateral step
 * (collateralPort.ts) and verified (once per collateral version) in the worker by the kind's
 * collateral port. A batch task (several reports) hashes their userData in one call first.
 */
import type { KeyObject } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { hashReportDataMany } from '../hash/index.js';
import { verifyReportBytes, type VerifyDeps } from '../verify/verifyReport.js';
import { checkAttestationResponse } from '../verify/attestationResponse.js';
import { findReportKind, REPORT_TYPES, type CollateralSource } from '../verify/kinds/index.js';
import type { Policy, ReportCheck, ReportType, ReportVerifier, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';
import { requestCollateral } from './collateralPort.js';

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

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<VerifyOutcome | ReportCheck | VerifyOutcome[]> {
  const roots = Object.fromEntries(REPORT_TYPES.map((id) => [id, parseCertificate(setup.roots[id])])) as Record<ReportType, Certificate>;
  const policy: Policy = setup.policy;
  const chainCache = new ChainCache();
  const keyCache = new LRUCache<string, KeyObject>({ max: 1024 });
  const verified = new LRUCache<string, object>({ max: 64 });

  /** The collateral of `report`'s kind, asked of the main thread over the task's port. */
  const collateralFor = (report: Uint8Array, port: MessagePort | undefined): CollateralSource | undefined => {
    const kind = findReportKind(report);
    const c = kind?.collateral;
    if (!kind || !c) return undefined;
    return {
      async forReport(parsed, time) {
        if (!port) throw c.unavailable();
        const pack = await requestCollateral(port, c.subject(parsed as never));
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
    const verify: ReportVerifier = (userData, report, o) => {
      const collateral = collateralFor(report, task.collateralPort);
      const deps: VerifyDeps = { roots, chainCache, keyCache, ...(collateral ? { collateral } : {}), ...(setup.time !== undefined ? { time: setup.time } : {}) };
      return verifyReportBytes(userData, report, policy, deps, o);
    };
    try {
      if (task.op === 'response') return await checkAttestationResponse(task.entry, verify);
      if (task.op === 'bytesMany') {
        const { hashes, secondsEach } = batchHashes(task.items);
        const outs: VerifyOutcome[] = [];
        for (const [i, it] of task.items.entries()) {
          const h = hashes[i];
          const out = await verify(it.userData, it.report, { ...(it.nonce ? { nonce: it.nonce } : {}), ...(h ? { userDataHash: h } : {}) });
          // The hash was computed (in the batch): its share of the batch's hash time, for verifier_hash_seconds.
          if (h && secondsEach !== undefined && out.timings?.hashSeconds === undefined) out.timings = { ...out.timings, hashSeconds: secondsEach };
          outs.push(out);
        }
        return outs;
      }
      return await verify(task.userData, task.report, task.nonce ? { nonce: task.nonce } : {});
    } finally {
      task.collateralPort?.close();
    }
  };
}
