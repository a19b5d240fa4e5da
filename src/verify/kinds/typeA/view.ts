/** The typeA decodedReport view (spec "decodedReport, kind typeA"): bytes as base64, measurements also as ledger struct texts. */
import { formatProductId, formatUniqueId } from '../../../aleo/ids.js';
import type { Quote } from '../../../attestation/typeA/quote.js';
import { EGO_TCB_STATUS } from '../../../attestation/typeA/tcbStatus.js';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export interface TypeAView extends Record<string, unknown> {
  data: string;
  reportData: string;
  securityVersion: number;
  debug: boolean;
  uniqueId: string;
  ledgerUniqueId: string;
  signerId: string;
  ledgerSignerId: string;
  productId: string;
  ledgerProductId: string;
  /** EGo's integer for the TCB status (Unknown until the quote verified). */
  tcbStatus: number;
  tcbStatusName?: string;
  advisoryIds?: readonly string[];
}

export function typeAView(q: Quote): TypeAView {
  const body = q.isvReport;
  const productId = new Uint8Array(16);
  productId[0] = body.isvProdId & 0xff;
  productId[1] = body.isvProdId >> 8;
  return {
    // The 16 bytes bound to userData, as the reference shows them; the whole 64 bytes follow.
    data: b64(body.reportData.subarray(0, 16)),
    reportData: b64(body.reportData),
    securityVersion: body.isvSvn,
    debug: body.debug,
    uniqueId: b64(body.mrEnclave),
    ledgerUniqueId: formatUniqueId(body.mrEnclave, { quoted: true }),
    signerId: b64(body.mrSigner),
    ledgerSignerId: formatUniqueId(body.mrSigner, { quoted: true }),
    productId: b64(productId),
    ledgerProductId: formatProductId(productId),
    tcbStatus: EGO_TCB_STATUS.Unknown,
  };
}
