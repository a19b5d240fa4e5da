/** The in-process VerifierService: the core called directly (the worker pool wraps the same calls). */
import { decodeUserDataText, verifyReportBytes, verifyReportText, type VerifyDeps } from './verifyReport.js';
import { checkAttestationResponse } from './attestationResponse.js';
import type { Policy, ReportTexts, VerifierService, VerifyOutcome } from './types.js';

/** The outcomes of the pairs, one after the other (no batching in process: the hash is per report). */
async function decodeReportsInOrder(pairs: readonly ReportTexts[], one: (userData: string, report: string) => Promise<VerifyOutcome>): Promise<VerifyOutcome[]> {
  const outs: VerifyOutcome[] = [];
  for (const p of pairs) outs.push(await one(p.userData, p.report));
  return outs;
}

export function createInProcessService(policy: Policy, deps: VerifyDeps): VerifierService {
  return {
    decode: (userData) => decodeUserDataText(userData),
    decodeReport: (userData, report, opts) => verifyReportText(userData, report, policy, deps, opts),
    verifyBytes: (t) => verifyReportBytes(t.userData, t.report, policy, deps, t.nonce ? { nonce: t.nonce } : {}),
    checkResponse: (entry) => checkAttestationResponse(entry, (userData, report, o) => verifyReportBytes(userData, report, policy, deps, o)),
    decodeReports: (pairs) => decodeReportsInOrder(pairs, (userData, report) => verifyReportText(userData, report, policy, deps)),
  };
}
