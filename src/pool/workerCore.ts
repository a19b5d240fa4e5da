/**
 * What a verification worker does with one task: the verification core, with typeA collateral
 * asked of the main thread when the quote reaches its collateral step (collateralPort.ts) and
 * verified (once per collateral version) in the worker.
 */
import type { KeyObject } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { VerifierError } from '../errors.js';
import { parseCertificate, type Certificate } from '../attestation/x509/certificate.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { verifyCollateral, type TypeACollateralSource, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import { verifyReportBytes, type VerifyDeps } from '../verify/verifyReport.js';
import { checkAttestationResponse } from '../verify/attestationResponse.js';
import type { ReportCheck } from '../verify/types.js';
import { REPORT_TYPES } from '../verify/kinds/index.js';
import type { Policy, ReportType, VerifyOutcome } from '../verify/types.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import { unpackCollateral } from './collateralPack.js';
import { requestCollateral } from './collateralPort.js';

export function createWorkerCore(setup: WorkerSetup): (task: VerifyTask) => Promise<VerifyOutcome | ReportCheck> {
  const roots = Object.fromEntries(REPORT_TYPES.map((id) => [id, parseCertificate(setup.roots[id])])) as Record<ReportType, Certificate>;
  const policy: Policy = setup.policy;
  const chainCache = new ChainCache();
  const keyCache = new LRUCache<string, KeyObject>({ max: 1024 });
  const verified = new LRUCache<string, VerifiedCollateral>({ max: 64 });

  const collateralVia = (port: MessagePort | undefined): TypeACollateralSource => ({
    async forQuote(quote, time) {
      if (!port) throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', 'typeA: no collateral was supplied for this quote');
      const pack = await requestCollateral(port, { pckCertPems: quote.pckCertPems });
      const hit = verified.get(pack.version);
      if (hit) return hit;
      const vc = verifyCollateral(unpackCollateral(pack), { root: roots.typeA, time });
      verified.set(pack.version, vc);
      return vc;
    },
  });

  return async (task) => {
    const deps: VerifyDeps = {
      roots,
      chainCache,
      keyCache,
      collateral: collateralVia(task.collateralPort),
      ...(setup.typeATime !== undefined ? { typeATime: setup.typeATime } : {}),
    };
    try {
      if (task.op === 'response') {
        return await checkAttestationResponse(task.entry, (userData, report, o) => verifyReportBytes(userData, report, policy, deps, o));
      }
      return await verifyReportBytes(task.userData, task.report, policy, deps, task.nonce ? { nonce: task.nonce } : {});
    } finally {
      task.collateralPort?.close();
    }
  };
}
