/** The typeB report kind: AWS Nitro attestation documents (notarizer reportType "nitro"). */
import { cutTypeBReport, TYPEB_PREFIX } from '../../../attestation/typeB/detect.js';
import { parseTypeB, type ParsedTypeB } from '../../../attestation/typeB/verify.js';
import type { KindMeasurements, ReportKind } from '../types.js';
import { typeBNotarizerInfo, type TypeBInfo } from './notarizerInfo.js';
import { typeBTarget } from './target.js';
import { TYPEB_KIND_CHECKS, verifyTypeB } from './verify.js';
import { typeBView, type TypeBView } from './view.js';

export const typeB: ReportKind<'typeB', 'nitro', ParsedTypeB, TypeBView, never, readonly Uint8Array[], TypeBInfo> = {
  id: 'typeB',
  wireName: 'nitro',
  label: 'AWS Nitro attestation document',
  prefix: TYPEB_PREFIX,
  prefixName: 'COSE_Sign1 prefix',
  acceptsNonce: true,
  // AWS Nitro Enclaves Root G1 (valid 2019-10-28 to 2049-10-28).
  bundledRoot: { file: 'aws-nitro-enclaves-root-g1.pem', sha256: '641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b' },
  usesVerificationTime: false,
  target: typeBTarget,
  notarizerInfo: typeBNotarizerInfo,
  parse: (report) => parseTypeB(cutTypeBReport(report)),
  view: typeBView,
  boundBytes: (parsed) => parsed.document.userData ?? undefined,
  checks: TYPEB_KIND_CHECKS,
  verify: verifyTypeB,
  measurements(view): KindMeasurements {
    const pcrs = view.pcrs as Record<string, unknown> | undefined;
    if (!pcrs) return {};
    const list = ['0', '1', '2'].map((k) => (typeof pcrs[k] === 'string' ? Buffer.from(pcrs[k], 'base64').toString('hex') : undefined));
    return list.every((x) => x !== undefined) ? { [typeBTarget.ledger.name]: list as string[] } : {};
  },
};
