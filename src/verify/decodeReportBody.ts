/** The public shape of a decode-and-verify outcome, shared by POST /decodeReport and the CLI. */
import { outcomeFor } from '../errorCodes.js';
import type { VerifyOutcome } from './types.js';

/**
 * The body POST /decodeReport answers for an outcome (same keys, same order). `outcome` is
 * `valid`, `invalid` (a check failed on the evidence) or `unverifiable` (the verifier could not
 * decide: PCCS or collateral unavailable, …), by the failure code's traits (src/errorCodes.ts).
 */
export function decodeReportBody(out: VerifyOutcome): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (out.reportType) body.reportType = out.reportType;
  if (out.decodedData) body.decodedData = out.decodedData;
  if (out.decodedRequests) body.decodedRequests = out.decodedRequests;
  if (out.decodedReport) body.decodedReport = out.decodedReport;
  body.reportValid = out.reportValid;
  body.outcome = outcomeFor(out.reportValid, out.error?.code);
  if (out.checks) body.checks = out.checks;
  if (out.error) {
    body.errorString = out.error.message;
    body.errorCode = out.error.code;
  }
  return body;
}
