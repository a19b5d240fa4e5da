/** The typeA report kind: Intel SGX DCAP quotes (notarizer reportType "sgx"). */
import { cutTypeAReport, parseQuote, TYPEA_PREFIX, type Quote } from '../../../attestation/typeA/quote.js';
import type { Collateral } from '../../../attestation/typeA/collateral.js';
import { verifyCollateral, type TypeACollateralSource } from '../../../attestation/typeA/verify.js';
import { verifyHistoryCollateral } from '../../../attestation/typeA/historyCollateral.js';
import { VerifierError } from '../../../errors.js';
import type { VerifyCode } from '../../errors.js';
import type { TypeACode } from '../../../attestation/typeA/errors.js';
import type { KindMeasurements, ReportKind } from '../types.js';
import { typeANotarizerInfo, type TypeAInfo } from './notarizerInfo.js';
import { typeATarget } from './target.js';
import { TYPEA_KIND_CHECKS, verifyTypeA } from './verify.js';
import { typeAView, type TypeAView } from './view.js';

export const typeA: ReportKind<'typeA', 'sgx', Quote, TypeAView, TypeACollateralSource, Uint8Array, TypeAInfo> = {
  id: 'typeA',
  wireName: 'sgx',
  label: 'Intel SGX DCAP quote',
  prefix: TYPEA_PREFIX,
  prefixName: 'Open Enclave header',
  // TCB info, QE identity and CRLs for the platform its PCK chain names (src/collateral: a PCCS, a collateral directory).
  collateral: {
    subject: (quote: Quote) => ({ pckCertPems: quote.pckCertPems }),
    verify: (raw: Collateral, root, time) => verifyCollateral(raw, { root, time }),
    verifyAsOf: verifyHistoryCollateral,
    unavailable: () => new VerifierError<VerifyCode>('TYPEA_COLLATERAL_UNAVAILABLE', 'typeA: no collateral was supplied for this quote'),
    unavailableAsOf: (time) =>
      new VerifierError<TypeACode>(
        'TYPEA_TCB_EVALUATION_UNAVAILABLE',
        `typeA: judging this quote as it stood at ${new Date(time).toISOString()} needs the TCB evaluation then in force, from a collateral archive, and none is configured (config collateralArchive, or --archive DIR; fill it with "oracle-verifier collateral import")`,
      ),
  },
  acceptsNonce: false,
  // Intel SGX Root CA (valid 2018-05-21 to 2049-12-31).
  bundledRoot: { file: 'intel-sgx-root-ca.pem', sha256: '44a0196b2b99f889b8e149e95b807a350e7424964399e885a7cbb8ccfab674d3' },
  usesVerificationTime: true,
  target: typeATarget,
  notarizerInfo: typeANotarizerInfo,
  parse: (report) => parseQuote(cutTypeAReport(report)),
  view: typeAView,
  boundBytes: (quote) => quote.isvReport.reportData.subarray(0, 16),
  checks: TYPEA_KIND_CHECKS,
  verify: verifyTypeA,
  measurements(view): KindMeasurements {
    return typeof view.uniqueId === 'string' ? { [typeATarget.ledger.name]: Buffer.from(view.uniqueId, 'base64').toString('hex') } : {};
  },
};
