/**
 * `to_fields` of a flat struct of named u128 members, e.g. the oracle's
 * `{ request_hash: <u128>, attestation_timestamp: <u128> }` (layout: bits.ts).
 */
import { VerifierError } from '../errors.js';
import { BitWriter, packFields, U128_LITERAL_BITS } from './bits.js';
import type { HashCode } from './errors.js';

export interface U128Member {
  readonly name: string;
  readonly value: bigint;
}

/** Aleo identifier: ASCII letter first, then letters, digits, '_'; at most 31 bytes. */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,30}$/;
const U128_MAX = (1n << 128n) - 1n;
const MAX_MEMBERS = 255;

function fail(code: HashCode, message: string): never {
  throw new VerifierError<HashCode>(code, message);
}

export function u128StructFieldElements(members: readonly U128Member[]): bigint[] {
  if (members.length === 0 || members.length > MAX_MEMBERS) {
    fail('HASH_STRUCT_MEMBER', `a struct needs 1..${MAX_MEMBERS} members, got ${members.length}`);
  }
  const seen = new Set<string>();
  const w = new BitWriter();
  w.structHeader(members.length);
  members.forEach(({ name, value }, i) => {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      fail('HASH_STRUCT_MEMBER', `member ${i}: invalid identifier ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) fail('HASH_STRUCT_MEMBER', `member ${i}: duplicate name "${name}"`);
    seen.add(name);
    if (typeof value !== 'bigint' || value < 0n || value > U128_MAX) {
      fail('HASH_U128_OUT_OF_RANGE', `member "${name}": ${String(value)} is not a u128`);
    }
    w.memberHeader(name, U128_LITERAL_BITS);
    w.u128Literal(value);
  });
  return packFields(w);
}
