/**
 * COSE_Sign1 (RFC 9052) as emitted by the Nitro Secure Module: an untagged 4-element array
 * [protected bstr = {1: -35}, unprotected {} (or null), payload bstr, signature bstr(96)].
 */
import { VerifierError } from '../../errors.js';
import { cborTypeName, decodeCbor, type CborNode } from '../cbor.js';
import type { TypeBCode } from './errors.js';

/** COSE algorithm identifier of ECDSA P-384 with SHA-384. */
export const COSE_ES384 = -35;
export const ES384_SIGNATURE_LENGTH = 96;

export interface CoseSign1 {
  /** The protected header bstr content, exactly as received. */
  readonly protectedBytes: Uint8Array;
  /** The payload bstr content, exactly as received. */
  readonly payloadBytes: Uint8Array;
  /** r ‖ s, 48 bytes each. */
  readonly signature: Uint8Array;
}

function fail(code: TypeBCode, msg: string): never {
  throw new VerifierError<TypeBCode>(code, `typeB: COSE_Sign1: ${msg}`);
}

export function parseCoseSign1(report: Uint8Array): CoseSign1 {
  if (report.length > 0 && report[0] === 0xd2) {
    fail('TYPEB_COSE_TAGGED', 'tagged COSE_Sign1 (CBOR tag 18) not supported; the notarizer emits the untagged form');
  }
  let top: CborNode;
  try {
    top = decodeCbor(report, { maxDepth: 2, maxItems: 64 });
  } catch (e) {
    if (e instanceof VerifierError) throw new VerifierError(e.code, `typeB: COSE_Sign1: ${e.message}`, { cause: e });
    throw e;
  }
  if (top.kind !== 'array' || top.items.length !== 4) {
    fail('TYPEB_COSE_STRUCTURE', top.kind === 'array' ? `array of ${top.items.length} elements, expected 4` : `${cborTypeName(top)}, expected a 4-element array`);
  }
  const [prot, unprot, payload, sig] = top.items as [CborNode, CborNode, CborNode, CborNode];
  if (prot.kind !== 'bytes') fail('TYPEB_COSE_STRUCTURE', `protected header is a ${cborTypeName(prot)}, expected a byte string`);
  // RFC 9052 requires a map; a null unprotected header (seen in non-AWS samples) is read as empty.
  const unprotNull = unprot.kind === 'simple' && unprot.value === null;
  if (unprot.kind !== 'map' && !unprotNull) fail('TYPEB_COSE_STRUCTURE', `unprotected header is a ${cborTypeName(unprot)}, expected a map`);
  if (payload.kind !== 'bytes') fail('TYPEB_COSE_STRUCTURE', `payload is a ${cborTypeName(payload)}, expected a byte string`);
  if (sig.kind !== 'bytes') fail('TYPEB_COSE_STRUCTURE', `signature is a ${cborTypeName(sig)}, expected a byte string`);
  if (prot.indefinite || payload.indefinite || sig.indefinite) fail('TYPEB_COSE_STRUCTURE', 'indefinite-length byte string');

  checkProtectedHeader(prot.value);
  if (unprot.kind === 'map' && unprot.entries.length !== 0) fail('TYPEB_COSE_UNPROTECTED_HEADER', `unprotected header has ${unprot.entries.length} entries, expected none`);
  if (sig.value.length !== ES384_SIGNATURE_LENGTH) {
    fail('TYPEB_COSE_SIGNATURE_LENGTH', `signature is ${sig.value.length} bytes, expected ${ES384_SIGNATURE_LENGTH} (P-384 r ‖ s)`);
  }
  return { protectedBytes: prot.value, payloadBytes: payload.value, signature: sig.value };
}

/** The protected header must decode to exactly {1: -35}. */
function checkProtectedHeader(bytes: Uint8Array): void {
  let h: CborNode;
  try {
    h = decodeCbor(bytes, { maxDepth: 1, maxItems: 8 });
  } catch (e) {
    fail('TYPEB_COSE_PROTECTED_HEADER', `protected header is not valid CBOR (${(e as Error).message})`);
  }
  if (h.kind !== 'map' || h.entries.length !== 1) {
    fail('TYPEB_COSE_PROTECTED_HEADER', `protected header ${Buffer.from(bytes).toString('hex')} is not a one-entry map {1: alg}`);
  }
  const [k, v] = h.entries[0]!;
  if (k.kind !== 'uint' || k.value !== 1) fail('TYPEB_COSE_PROTECTED_HEADER', `protected header key is not 1 (alg)`);
  if (v.kind !== 'nint' || v.value !== COSE_ES384) {
    fail('TYPEB_COSE_ALGORITHM', `alg is ${'value' in v ? String(v.value) : cborTypeName(v)}, expected ${COSE_ES384} (ES384)`);
  }
}

function bstrHead(len: number): Uint8Array {
  if (len < 24) return Uint8Array.of(0x40 | len);
  if (len < 0x100) return Uint8Array.of(0x58, len);
  if (len < 0x10000) return Uint8Array.of(0x59, len >> 8, len & 0xff);
  return Uint8Array.of(0x5a, len >>> 24, (len >> 16) & 0xff, (len >> 8) & 0xff, len & 0xff);
}

/** "Signature1" as a CBOR text string: 6a + 10 ASCII bytes. */
const SIGNATURE1 = Uint8Array.of(0x6a, 0x53, 0x69, 0x67, 0x6e, 0x61, 0x74, 0x75, 0x72, 0x65, 0x31);

/**
 * Sig_structure = ["Signature1", protected, h'' (external AAD), payload], built from the received
 * bytes (never re-encoding the payload).
 */
export function sigStructure(protectedBytes: Uint8Array, payloadBytes: Uint8Array): Uint8Array {
  return Buffer.concat([
    Uint8Array.of(0x84),
    SIGNATURE1,
    bstrHead(protectedBytes.length),
    protectedBytes,
    Uint8Array.of(0x40),
    bstrHead(payloadBytes.length),
    payloadBytes,
  ]);
}
