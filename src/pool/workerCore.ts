/**
 * What a verification worker does with one task: the verification core, with the collateral of
 * the report's kind supplied by the main thread and verified (once per collateral version) in the
 * worker by the kind's collateral port.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { VerifierError } from '../errors.js';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { verifyReportBytes } from '../verify/verifyReport.js';
import { findReportKind, REPORT_TYPES, type CollateralSource } from '../verify/kinds/index.js';
import type { Policy, ReportType, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<VerifyOutcome> {
  const roots = Object.fromEntries(REPORT_TYPES.map((id) => [id, parseCertificate(setup.roots[id])])) as Record<ReportType, Certificate>;
  const policy: Policy = setup.policy;
  const chainCache = new ChainCache();
  const keyCache = new LRUCache<string, KeyObject>({ max: 1024 });
  const verified = new LRUCache<string, object>({ max: 64 });

  return async (task) => {
    const collateral: CollateralSource = {
      async forReport(_report, time) {
        if (task.collateralError) throw new VerifierError(task.collateralError.code, task.collateralError.message);
        const kind = findReportKind(task.report)!;
        if (!task.collateral) throw kind.collateral!.unavailable();
        const key = `${kind.id}:${task.collateral.version}`;
        const hit = verified.get(key);
        if (hit) return hit;
        const vc = kind.collateral!.verify(unpackCollateral(task.collateral), roots[kind.id], time);
        verified.set(key, vc);
        return vc;
      },
    };
    return verifyReportBytes(task.userData, task.report, policy, {
      roots,
      chainCache,
      keyCache,
      collateral,
      ...(setup.time !== undefined ? { time: setup.time } : {}),
    }, task.nonce ? { nonce: task.nonce } : {});
  };
}
