/**
 * The decodedReport views of the spec ("decodedReport, kind typeA / typeB"): bytes as base64,
 * measurements also as ledger struct texts.
 */
import { formatPcrStruct, formatProductId, formatUniqueId } from '../ledger/ids.js';
import type { ParsedTypeB } from '../attestation/typeB/verify.js';
import type { Quote } from '../attestation/typeA/quote.js';
import { EGO_TCB_STATUS } from '../attestation/typeA/tcbStatus.js';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export function typeAView(q: Quote): Record<string, unknown> {
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

export function typeBView(p: ParsedTypeB): Record<string, unknown> {
  const d = p.document;
  const pcrs: Record<string, string> = {};
  for (const [k, v] of [...d.pcrs.entries()].sort((a, b) => a[0] - b[0])) pcrs[String(k)] = b64(v);
  const first3 = [0, 1, 2].map((i) => d.pcrs.get(i));
  const view: Record<string, unknown> = {
    moduleID: d.moduleId,
    timestamp: d.timestamp,
    digest: d.digest,
    pcrs,
  };
  if (first3.every((v) => v !== undefined && v.length === 48)) view.ledgerPcrs = formatPcrStruct(first3 as Uint8Array[]);
  view.certificate = b64(d.certificate);
  view.cabundle = d.cabundle.map(b64);
  if (d.userData) view.userData = b64(d.userData);
  if (d.nonce) view.nonce = b64(d.nonce);
  if (d.publicKey) view.publicKey = b64(d.publicKey);
  view.protectedCose = b64(p.protectedBytes);
  view.signature = b64(p.signature);
  return view;
}
