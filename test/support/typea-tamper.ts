/**
 * One flipped bit in a signed part of an SGX quote v3 (raw quote bytes, no Open Enclave header),
 * each caught by its own collateral-free check: the ISV report signature, the QE report (signed
 * by the PCK key) and the PCK leaf certificate (signed by the PCK CA).
 */
import { parseQuoteLayout, SIGNED_LEN } from '../../src/attestation/typeA/quote.js';

export type TamperedPart = 'isvSignature' | 'qeReport' | 'pckLeaf';

/** Each tampered part, the check of the typeA trace that refuses it, and that check's code. */
export const TAMPER_CASES: readonly { part: TamperedPart; check: string; code: string }[] = [
  { part: 'isvSignature', check: 'typeA.isvSignature', code: 'TYPEA_ISV_REPORT_BAD_SIGNATURE' },
  { part: 'qeReport', check: 'typeA.qeSignature', code: 'TYPEA_QE_REPORT_BAD_SIGNATURE' },
  { part: 'pckLeaf', check: 'typeA.pckChain', code: 'X509_CHAIN_BAD_SIGNATURE' },
];

/** Quote offsets after the 432 signed bytes and the u32 signature data length. */
const ISV_SIGNATURE = SIGNED_LEN + 4;
const QE_REPORT = ISV_SIGNATURE + 64 + 64;
/** ISVSVN inside a report body. */
const QE_ISVSVN = 258;
const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';

/** A copy of `quote` with one bit of `part` flipped; the layout stays valid (the quote still parses). */
export function tamperQuote(quote: Uint8Array, part: TamperedPart): Uint8Array {
  const b = Buffer.from(quote);
  if (part === 'isvSignature') b[ISV_SIGNATURE + 10]! ^= 0x01;
  else if (part === 'qeReport') b[QE_REPORT + QE_ISVSVN]! ^= 0x01;
  else {
    // A bit of the leaf's signature value (the certificate DER ends with the ECDSA s integer),
    // re-encoded in place: same length, same line breaks, still a well-formed certificate.
    const leafPem = parseQuoteLayout(quote).pckCertPems[0];
    const at = b.indexOf(leafPem, 0, 'latin1');
    if (at < 0) throw new Error('PCK leaf PEM not found in the quote');
    const body = leafPem.slice(PEM_BEGIN.length, -PEM_END.length);
    const der = Buffer.from(body.replace(/[\r\n]/g, ''), 'base64');
    der[der.length - 8]! ^= 0x01;
    const b64 = der.toString('base64');
    let k = 0;
    const text = [...body].map((ch) => (ch === '\n' || ch === '\r' ? ch : b64[k++]!)).join('');
    if (k !== b64.length) throw new Error('re-encoded PCK leaf changed length');
    b.write(text, at + PEM_BEGIN.length, 'latin1');
  }
  return new Uint8Array(b);
}
