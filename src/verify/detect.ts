/**
 * Report kind detection from the recovered ledger bytes. typeA reports start with the Open
 * Enclave remote-report header (version 1, type 2); typeB reports with the COSE_Sign1 prefix the
 * notarizer emits (untagged array, protected {1: -35}, empty unprotected map, payload bstr with a
 * 2-byte length).
 */
import { VerifierError } from '../errors.js';
import { TYPEA_PREFIX } from '../attestation/typeA/quote.js';
import { TYPEB_PREFIX } from '../attestation/typeB/detect.js';
import type { ReportType } from './types.js';
import type { VerifyCode } from './errors.js';


export function hasPrefix(b: Uint8Array, magic: Uint8Array): boolean {
  if (b.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (b[i] !== magic[i]) return false;
  return true;
}

export function detectReportType(report: Uint8Array): ReportType {
  if (hasPrefix(report, TYPEA_PREFIX)) return 'typeA';
  if (hasPrefix(report, TYPEB_PREFIX)) return 'typeB';
  const head = Buffer.from(report.subarray(0, 8)).toString('hex');
  throw new VerifierError<VerifyCode>(
    'REPORT_UNKNOWN_KIND',
    `report: unrecognised report kind (first bytes ${head}); expected typeA (Open Enclave header 0100000002000000) or typeB (COSE_Sign1 prefix 8444a1013822a059)`,
  );
}
