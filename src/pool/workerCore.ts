/**
 * What a verification worker does with one task: the verification core, with typeA collateral
 * supplied by the main thread and verified (once per collateral version) in the worker.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { VerifierError } from '../errors.js';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { verifyCollateral, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import { verifyReportBytes } from '../verify/verifyReport.js';
import type { TypeACollateralSource } from '../attestation/typeA/verify.js';
import { REPORT_TYPES } from '../verify/kinds/index.js';
import type { Policy, ReportType, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<VerifyOutcome> {
  const roots = Object.fromEntries(REPORT_TYPES.map((id) => [id, parseCertificate(setup.roots[id])])) as Record<ReportType, Certificate>;
  const policy: Policy = setup.policy;
  const chainCache = new ChainCache();
  const keyCache = new LRUCache<string, KeyObject>({ max: 1024 });
  const verified = new LRUCache<string, VerifiedCollateral>({ max: 64 });

  return async (task) => {
    const collateral: TypeACollateralSource = {
      async forQuote(_quote, time) {
        if (task.collateralError) throw new VerifierError(task.collateralError.code, task.collateralError.message);
        if (!task.collateral) throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', 'typeA: no collateral was supplied for this quote');
        const hit = verified.get(task.collateral.version);
        if (hit) return hit;
        const vc = verifyCollateral(unpackCollateral(task.collateral), { root: roots.typeA, time });
        verified.set(task.collateral.version, vc);
        return vc;
      },
    };
    return verifyReportBytes(task.userData, task.report, policy, {
      roots,
      chainCache,
      keyCache,
      collateral,
      ...(setup.typeATime !== undefined ? { typeATime: setup.typeATime } : {}),
    }, task.nonce ? { nonce: task.nonce } : {});
  };
}
