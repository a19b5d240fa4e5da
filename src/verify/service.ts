/** The in-process VerifierService: the core called directly (the worker pool wraps the same calls). */
import { decodeUserDataText, verifyReportBytes, verifyReportText, type VerifyDeps } from './verifyReport.js';
import { checkAttestationResponse } from './attestationResponse.js';
import type { Policy, VerifierService } from './types.js';

export function createInProcessService(policy: Policy, deps: VerifyDeps): VerifierService {
  return {
    decode: (userData) => decodeUserDataText(userData),
    decodeReport: (userData, report, opts) => verifyReportText(userData, report, policy, deps, opts),
    verifyBytes: (t) => verifyReportBytes(t.userData, t.report, policy, deps, t.nonce ? { nonce: t.nonce } : {}),
    checkResponse: (entry) => checkAttestationResponse(entry, (userData, report, o) => verifyReportBytes(userData, report, policy, deps, o)),
  };
}
