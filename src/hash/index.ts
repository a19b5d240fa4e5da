/**
 * The oracle binding hash: Poseidon8 ("AleoPoseidon8" domain, snarkVM `hash.psd8`) over
 * `to_fields` of the chunked u128 struct holding the message bytes, cast to u128.
 * The enclave report carries its 16-byte little-endian form.
 */
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';
import { fieldToU128, u128ToLeBytes } from './field.js';
import { hashStructBytesField, hashStructBytesFieldMany, poseidon8Kernel } from './kernel.js';
import { u128StructFieldElements, type U128Member } from './u128Struct.js';

export type { HashCode } from './errors.js';
export { ALEO_POSEIDON8_DOMAIN } from './domain.js';
export { FIELD_MODULUS } from './field.js';
export { poseidon8 } from './poseidon8-reference.js';
export { structFieldElements, structFieldCount, STRUCT_CHUNK_BYTES } from './structFields.js';
export { u128StructFieldElements, type U128Member } from './u128Struct.js';

/**
 * Full field-element hash of the struct holding `bytes` (length a positive multiple of 512;
 * 4096 for userData, 5120 for a report). Throws VerifierError HASH_INPUT_* on bad lengths.
 */
export function hashReportDataField(bytes: Uint8Array): bigint {
  // The kernel reads the struct's field elements straight from the bytes (no BigInt round trip).
  return hashStructBytesField(bytes);
}

/** The hash as the ledger's u128 (`hash.psd8 … as u128`: lowest 128 bits). */
export function hashReportDataU128(bytes: Uint8Array): bigint {
  return fieldToU128(hashReportDataField(bytes));
}

/** The 16 bytes (u128 little-endian) the enclave puts at the start of its report user data. */
export function hashReportData(bytes: Uint8Array): Uint8Array {
  return u128ToLeBytes(hashReportDataU128(bytes));
}

/**
 * hashReportData of each of several structs (e.g. the userData of the updates of a block range),
 * in one call into the native kernel. Throws like hashReportData if any length is bad.
 */
export function hashReportDataMany(list: readonly Uint8Array[]): Uint8Array[] {
  return hashStructBytesFieldMany(list).map((f) => u128ToLeBytes(fieldToU128(f)));
}

/** `hash.psd8 { m0: <u128>, m1: <u128>, … } as u128` for a flat struct of named u128 members. */
export function hashU128Struct(members: readonly U128Member[]): bigint {
  return fieldToU128(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, u128StructFieldElements(members)));
}

/**
 * The oracle's timestampedRequestHash:
 * `hash.psd8 { request_hash: <requestHash>, attestation_timestamp: <timestamp> } as u128`.
 */
export function hashTimestampedRequest(requestHash: bigint, attestationTimestamp: bigint): bigint {
  return hashU128Struct([
    { name: 'request_hash', value: requestHash },
    { name: 'attestation_timestamp', value: attestationTimestamp },
  ]);
}
