/**
 * Locating a typeB report inside a recovered ledger report: the notarizer writes an untagged
 * COSE_Sign1 whose first bytes are fixed, followed by zero padding up to the ledger size.
 */
import { VerifierError } from '../../errors.js';
import { hasPrefix, hex } from '../../bytes.js';
import type { TypeBCode } from './errors.js';

/** 84 (array 4) · 44 a1 01 38 22 (bstr {1: -35}) · a0 (empty map) · 59 (bstr, u16 length). */
export const TYPEB_PREFIX: Uint8Array = Uint8Array.of(0x84, 0x44, 0xa1, 0x01, 0x38, 0x22, 0xa0, 0x59);
/** Bytes of the object around the payload: 10 header bytes + `58 60` + 96 signature bytes. */
export const TYPEB_OVERHEAD = 108;

/** Cuts the COSE_Sign1 object (payload length L at offset 8, object = L + 108 bytes) out of `recovered`; the rest must be zero. */
export function cutTypeBReport(recovered: Uint8Array): Uint8Array {
  const fail = (code: TypeBCode, msg: string): never => {
    throw new VerifierError<TypeBCode>(code, `typeB: report: ${msg}`);
  };
  if (recovered.length < 10) fail('TYPEB_REPORT_TOO_SHORT', `${recovered.length} bytes, shorter than the 10-byte COSE_Sign1 header`);
  if (!hasPrefix(recovered, TYPEB_PREFIX)) {
    fail('TYPEB_REPORT_PREFIX', `does not start with ${hex(TYPEB_PREFIX)} (got ${hex(recovered.subarray(0, 8))})`);
  }
  const payloadLength = (recovered[8]! << 8) | recovered[9]!;
  const size = payloadLength + TYPEB_OVERHEAD;
  if (recovered.length < size) {
    fail('TYPEB_REPORT_TOO_SHORT', `payload length ${payloadLength} implies a ${size}-byte object but only ${recovered.length} bytes are present`);
  }
  for (let i = size; i < recovered.length; i++) {
    if (recovered[i] !== 0) {
      fail('TYPEB_REPORT_NONZERO_PADDING', `non-zero byte 0x${recovered[i]!.toString(16).padStart(2, '0')} at offset ${i} after the ${size}-byte object`);
    }
  }
  return recovered.subarray(0, size);
}
