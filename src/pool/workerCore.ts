/**
 * What a verification worker does with one task: the verification core, with the collateral of
 * the report's kind asked of the main thread when the report reaches its collateral step
 * (collateralPort.ts) and verified (once per collateral version) in the worker by the kind's
 * collateral port.
 */
import type { KeyObject } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { verifyReportBytes, type VerifyDeps } from '../verify/verifyReport.js';
import { checkAttestationResponse } from '../verify/attestationResponse.js';
import { findReportKind, REPORT_TYPES, type CollateralSource } from '../verify/kinds/index.js';
import type { Policy, ReportCheck, ReportType, ReportVerifier, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';
import { requestCollateral } from './collateralPort.js';

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<VerifyOutcome | ReportCheck> {
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
      return await verify(task.userData, task.report, task.nonce ? { nonce: task.nonce } : {});
    } finally {
      task.collateralPort?.close();
    }
  };
}
