/** The typeA report kind: Intel SGX DCAP quotes (notarizer reportType "sgx"). */
import { cutTypeAReport, parseQuote, parseQuoteLayout, TYPEA_PREFIX, type Quote } from '../../../attestation/typeA/quote.js';
import type { KindMeasurements, ReportKind } from '../types.js';
import { TYPEA_KIND_CHECKS, verifyTypeA } from './verify.js';
import { typeAView, type TypeAView } from './view.js';

export const typeA: ReportKind<'typeA', 'sgx', Quote, TypeAView> = {
  id: 'typeA',
  wireName: 'sgx',
  label: 'Intel SGX DCAP quote',
  prefix: TYPEA_PREFIX,
  prefixName: 'Open Enclave header',
  needsCollateral: true,
  collateralSubject: (report) => parseQuoteLayout(cutTypeAReport(report)),
  acceptsNonce: false,
  // Intel SGX Root CA (valid 2018-05-21 to 2049-12-31).
  bundledRoot: { file: 'intel-sgx-root-ca.pem', sha256: '44a0196b2b99f889b8e149e95b807a350e7424964399e885a7cbb8ccfab674d3' },
  usesVerificationTime: true,
  parse: (report) => parseQuote(cutTypeAReport(report)),
  view: typeAView,
  boundBytes: (quote) => quote.isvReport.reportData.subarray(0, 16),
  checks: TYPEA_KIND_CHECKS,
  verify: verifyTypeA,
  measures: 'uniqueId',
  measurements(view): KindMeasurements {
    return typeof view.uniqueId === 'string' ? { uniqueId: Buffer.from(view.uniqueId, 'base64').toString('hex') } : {};
  },
};
