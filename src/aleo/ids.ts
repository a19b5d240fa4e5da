/**
 * Ledger struct texts of enclave measurements, as the verifier prints them (single line):
 * unique/signer id `{ chunk_1: <u128>, chunk_2: <u128> }`, product id `<u128>`, and the PCR struct
 * `{ pcr_0_chunk_1: <u128>, …, pcr_2_chunk_3: <u128> }`. Every u128 is a 16-byte little-endian group.
 * Parsing the ledger's own (pretty-printed) texts back is in `leoValue.ts`.
 */
import { VerifierError } from '../errors.js';
import type { LedgerCode } from './errors.js';
import { u128LEToDecimal } from './u128.js';

function checkLength(bytes: Uint8Array, want: number, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== want) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new VerifierError<LedgerCode>('STRUCT_INVALID_ARGUMENT', `${what}: expected ${want} bytes, got ${got}`);
  }
}

/**
 * 32-byte unique id (MRENCLAVE) or signer id (MRSIGNER) → `{ chunk_1: <u128>, chunk_2: <u128> }`.
 * `quoted`: values written as `"…u128"` (the decoded typeA report's ledgerUniqueId/ledgerSignerId).
 */
export function formatUniqueId(id32: Uint8Array, opts: { quoted?: boolean } = {}): string {
  checkLength(id32, 32, 'unique id');
  const q = opts.quoted === true ? '"' : '';
  return `{ chunk_1: ${q}${u128LEToDecimal(id32, 0)}u128${q}, chunk_2: ${q}${u128LEToDecimal(id32, 16)}u128${q} }`;
}

/** 16-byte product id → `<u128>u128`. */
export function formatProductId(id16: Uint8Array): string {
  checkLength(id16, 16, 'product id');
  return `${u128LEToDecimal(id16, 0)}u128`;
}

/** PCR0, PCR1, PCR2 (48 bytes each) → `{ pcr_0_chunk_1: <u128>, …, pcr_2_chunk_3: <u128> }`. */
export function formatPcrStruct(pcrs: readonly Uint8Array[]): string {
  if (!Array.isArray(pcrs) || pcrs.length !== 3) {
    throw new VerifierError<LedgerCode>('STRUCT_INVALID_ARGUMENT', `PCR struct: expected 3 PCRs (0, 1, 2), got ${Array.isArray(pcrs) ? pcrs.length : typeof pcrs}`);
  }
  const parts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const pcr = pcrs[i] as Uint8Array;
    checkLength(pcr, 48, `PCR ${i}`);
    for (let j = 0; j < 3; j++) parts.push(`pcr_${i}_chunk_${j + 1}: ${u128LEToDecimal(pcr, 16 * j)}u128`);
  }
  return `{ ${parts.join(', ')} }`;
}
