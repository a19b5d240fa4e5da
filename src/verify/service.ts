/** The in-process VerifierService: the core called directly (the worker pool wraps the same calls). */
import { decodeUserDataText, verifyReportBytes, verifyReportText, type VerifyDeps } from './verifyReport.js';
import { checkAttestationResponse } from './attestationResponse.js';
import { decodeReportAnswer } from './decodeReportAnswer.js';
import type { Policy, ReportTexts, VerifierService, VerifyOutcome } from './types.js';

/**
 * The outcomes of the pairs in order, started together as separate decodeReport calls would be
 * (a typeA report may wait for its collateral); in process there is no task to share.
 */
function decodeReportsInOrder(pairs: readonly ReportTexts[], one: (p: ReportTexts) => Promise<VerifyOutcome>): Promise<VerifyOutcome[]> {
  return Promise.all(pairs.map(one));
}

export function createInProcessService(policy: Policy, deps: VerifyDeps): VerifierService {
  return {
    decode: (userData) => decodeUserDataText(userData),
    decodeReport: (userData, report, opts) => verifyReportText(userData, report, policy, deps, opts),
    // In process the outcome is already here: its answer is serialised on this thread.
    decodeReportAnswer: async (userData, report, opts) => decodeReportAnswer(await verifyReportText(userData, report, policy, deps, opts)),
    verifyBytes: (t) => verifyReportBytes(t.userData, t.report, policy, deps, t.nonce ? { nonce: t.nonce } : {}),
    checkResponse: (entry) => checkAttestationResponse(entry, (userData, report, o) => verifyReportBytes(userData, report, policy, deps, o)),
    decodeReports: (pairs) => decodeReportsInOrder(pairs, (p) => verifyReportText(p.userData, p.report, policy, deps, p.asOf !== undefined ? { asOf: p.asOf } : {})),
  };
}
