/**
 * `to_fields` of a flat struct of named u128 members, e.g. the oracle's
 * `{ request_hash: <u128>, attestation_timestamp: <u128> }` (layout: bits.ts).
 */
import { VerifierError } from '../errors.js';
import { BitWriter, FIELD_DATA_BITS, U128_LITERAL_BITS } from './bits.js';
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
  members.forEach(({ name, value }, i) => {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      fail('HASH_STRUCT_MEMBER', `member ${i}: invalid identifier ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) fail('HASH_STRUCT_MEMBER', `member ${i}: duplicate name "${name}"`);
    seen.add(name);
    if (typeof value !== 'bigint' || value < 0n || value > U128_MAX) {
      fail('HASH_U128_OUT_OF_RANGE', `member "${name}": ${String(value)} is not a u128`);
    }
  });
  // The bit string of these names with every value 0 (built once), the values written in as words.
  const t = templateOf(members.map((m) => m.name));
  const words = t.words.slice();
  members.forEach(({ value }, i) => {
    for (let j = 0; j < 4; j++) writeWord(words, t.valueOffsets[i]! + 32 * j, Number((value >> BigInt(32 * j)) & 0xffffffffn));
  });
  const out: bigint[] = [];
  for (let start = 0; start < t.bits; start += FIELD_DATA_BITS) {
    const n = Math.min(FIELD_DATA_BITS, t.bits - start);
    let x = 0n;
    for (let j = Math.ceil(n / 32) - 1; j >= 0; j--) x = (x << 32n) | BigInt(readWord(words, start + 32 * j, Math.min(32, n - 32 * j)));
    out.push(x);
  }
  return out;
}

/** A struct's bit string (`to_bits_le` ++ the terminating 1, bits.ts) with its u128 values left 0, and where each value's 128 bits start. */
interface Template {
  words: Uint32Array;
  bits: number;
  valueOffsets: number[];
}

const TEMPLATES = new Map<string, Template>();
const MAX_TEMPLATES = 64;

function templateOf(names: readonly string[]): Template {
  const key = names.join(',');
  let t = TEMPLATES.get(key);
  if (t) return t;
  const w = new BitWriter();
  w.structHeader(names.length);
  const valueOffsets = names.map((name) => {
    w.memberHeader(name, U128_LITERAL_BITS);
    return w.u128Literal(0n);
  });
  w.push(1, 1);
  // One spare word: reads of the last piece may look past the end.
  const words = new Uint32Array(Math.ceil(w.length / 32) + 1);
  w.bits.forEach((b, i) => {
    if (b) words[i >>> 5]! |= 1 << (i & 31);
  });
  t = { words, bits: w.length, valueOffsets };
  if (TEMPLATES.size >= MAX_TEMPLATES) TEMPLATES.clear();
  TEMPLATES.set(key, t);
  return t;
}

/** ORs the 32 bits of `v` in at bit `offset` (little-endian bit order). */
function writeWord(words: Uint32Array, offset: number, v: number): void {
  const i = offset >>> 5;
  const sh = offset & 31;
  words[i]! |= v << sh;
  if (sh !== 0) words[i + 1]! |= v >>> (32 - sh);
}

/** The `count` (1..32) bits at bit `offset`, as an unsigned number. */
function readWord(words: Uint32Array, offset: number, count: number): number {
  const i = offset >>> 5;
  const sh = offset & 31;
  let v = words[i]! >>> sh;
  if (sh !== 0) v |= words[i + 1]! << (32 - sh);
  return count === 32 ? v >>> 0 : v & ((1 << count) - 1);
}
