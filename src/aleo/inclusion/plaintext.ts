/**
 * Leo plaintext values as snarkOS prints them (`1550000u64`, `aleo1…`, `true`, `{ a: 1u8, b: … }`,
 * `[1u8, 2u8]`) and their bits as snarkVM's `Plaintext::to_bits_le` writes them:
 *   literal = 0,0 | type (u8) | size in bits (u16) | value bits
 *   struct  = 0,1 | members (u8) | per member: name bits (u8) | name | value size (u16) | value
 *   array   = 1,0 | length (u32) | per element: size (u16) | element
 *   signature = challenge (251) ‖ response (251) ‖ pk_sig x (253) ‖ pr_sig x (253), from the 128
 *               bytes of its `sign1…` text (snarkVM `console/account/src/signature`)
 * Strings are not read (no oracle program takes one as a public input).
 */
import { BitString } from '../../hash/bhp/index.js';
import { FIELD_MODULUS } from '../../hash/field.js';
import { decodeBech32m, leBytesToBigInt } from '../bech32m.js';

export class PlaintextError extends Error {}

/** snarkVM `LiteralType` variants and sizes. */
const INTEGER_TYPES: Record<string, { id: number; bits: number; signed: boolean }> = {
  i8: { id: 4, bits: 8, signed: true },
  i16: { id: 5, bits: 16, signed: true },
  i32: { id: 6, bits: 32, signed: true },
  i64: { id: 7, bits: 64, signed: true },
  i128: { id: 8, bits: 128, signed: true },
  u8: { id: 9, bits: 8, signed: false },
  u16: { id: 10, bits: 16, signed: false },
  u32: { id: 11, bits: 32, signed: false },
  u64: { id: 12, bits: 64, signed: false },
  u128: { id: 13, bits: 128, signed: false },
};
const ADDRESS = 0;
const BOOLEAN = 1;
const FIELD = 2;
const GROUP = 3;
const SCALAR = 14;
const SIGNATURE = 15;
const FIELD_BITS = 253;
const SCALAR_BITS = 251;
/** The Edwards curve's prime subgroup order (the `scalar` type's modulus). */
const SCALAR_MODULUS = 2111115437357092606062206234695386632838870926408408195193685246394721360383n;

class Reader {
  i = 0;
  constructor(readonly text: string) {}
  ws(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i] as string)) this.i++;
  }
  peek(): string {
    this.ws();
    return this.text[this.i] ?? '';
  }
  expect(c: string): void {
    if (this.peek() !== c) throw new PlaintextError(`expected "${c}" at offset ${this.i}`);
    this.i++;
  }
  word(): string {
    this.ws();
    const m = /^[A-Za-z0-9_.\-]+/.exec(this.text.slice(this.i, this.i + 400));
    if (m === null) throw new PlaintextError(`expected a value at offset ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }
}

function literalBits(out: BitString, text: string): void {
  const lit = (type: number, size: number, write: (b: BitString) => void) => {
    out.int(0, 2).int(type, 8).int(size, 16);
    write(out);
  };
  if (text === 'true' || text === 'false') return lit(BOOLEAN, 1, (b) => b.bool(text === 'true'));
  if (text.startsWith('aleo1')) {
    const bytes = decodeBech32m(text, 'aleo');
    if (typeof bytes === 'string' || bytes.length !== 32) throw new PlaintextError(`"${text}" is not an address (${typeof bytes === 'string' ? bytes : 'wrong length'})`);
    const x = leBytesToBigInt(bytes);
    if (x >= FIELD_MODULUS) throw new PlaintextError(`"${text}" is not an address (x out of range)`);
    return lit(ADDRESS, FIELD_BITS, (b) => b.int(x, FIELD_BITS));
  }
  if (text.startsWith('sign1')) {
    const bytes = decodeBech32m(text, 'sign');
    if (typeof bytes === 'string' || bytes.length !== 128) throw new PlaintextError(`"${text.slice(0, 40)}…" is not a signature (${typeof bytes === 'string' ? bytes : `${bytes.length} bytes`})`);
    const part = (i: number) => leBytesToBigInt(bytes.subarray(32 * i, 32 * i + 32));
    const [challenge, response, pkSig, prSig] = [part(0), part(1), part(2), part(3)];
    if (challenge >= SCALAR_MODULUS || response >= SCALAR_MODULUS || pkSig >= FIELD_MODULUS || prSig >= FIELD_MODULUS) throw new PlaintextError(`"${text.slice(0, 40)}…" is not a signature (a value out of range)`);
    return lit(SIGNATURE, 2 * SCALAR_BITS + 2 * FIELD_BITS, (b) => b.int(challenge, SCALAR_BITS).int(response, SCALAR_BITS).int(pkSig, FIELD_BITS).int(prSig, FIELD_BITS));
  }
  const m = /^(-?[0-9]+)(field|group|scalar|[iu](?:8|16|32|64|128))$/.exec(text);
  if (m === null) throw new PlaintextError(`"${text.slice(0, 80)}" is not a literal this verifier reads`);
  const value = BigInt(m[1] as string);
  const suffix = m[2] as string;
  if (suffix === 'field' || suffix === 'group') {
    if (value < 0n || value >= FIELD_MODULUS) throw new PlaintextError(`"${text}" is out of range`);
    // A group literal is written as its x-coordinate, as its bits are.
    return lit(suffix === 'field' ? FIELD : GROUP, FIELD_BITS, (b) => b.int(value, FIELD_BITS));
  }
  if (suffix === 'scalar') {
    if (value < 0n || value >= SCALAR_MODULUS) throw new PlaintextError(`"${text}" is out of range`);
    return lit(SCALAR, SCALAR_BITS, (b) => b.int(value, SCALAR_BITS));
  }
  const t = INTEGER_TYPES[suffix] as { id: number; bits: number; signed: boolean };
  const min = t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
  const max = t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n;
  if (value < min || value > max) throw new PlaintextError(`"${text}" is out of range`);
  return lit(t.id, t.bits, (b) => b.int(value, t.bits));
}

function valueBits(r: Reader, depth: number): Uint8Array {
  if (depth > 32) throw new PlaintextError('nested deeper than 32');
  const out = new BitString();
  const c = r.peek();
  if (c === '{') {
    r.expect('{');
    const members: [string, Uint8Array][] = [];
    while (r.peek() !== '}') {
      const name = r.word();
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || name.length > 31) throw new PlaintextError(`"${name}" is not a member name`);
      r.expect(':');
      members.push([name, valueBits(r, depth + 1)]);
      if (r.peek() === ',') r.expect(',');
      else break;
    }
    r.expect('}');
    out.int(0, 1).int(1, 1).int(members.length, 8);
    for (const [name, bits] of members) {
      out.int(name.length * 8, 8).bytes(new TextEncoder().encode(name)).int(bits.length, 16).bits(bits);
    }
    return out.toArray();
  }
  if (c === '[') {
    r.expect('[');
    const elements: Uint8Array[] = [];
    while (r.peek() !== ']') {
      elements.push(valueBits(r, depth + 1));
      if (r.peek() === ',') r.expect(',');
      else break;
    }
    r.expect(']');
    out.int(1, 1).int(0, 1).int(elements.length, 32);
    for (const e of elements) out.int(e.length, 16).bits(e);
    return out.toArray();
  }
  literalBits(out, r.word());
  return out.toArray();
}

/** `Plaintext::to_bits_le` of a value's text. Throws PlaintextError on what it cannot read. */
export function plaintextBits(text: string): Uint8Array {
  const r = new Reader(text);
  const bits = valueBits(r, 0);
  if (r.peek() !== '') throw new PlaintextError(`unexpected text after the value at offset ${r.i}`);
  return bits;
}

/** `Plaintext::to_fields`: its bits and a final 1, in 252-bit little-endian pieces. */
export function plaintextFields(text: string): bigint[] {
  const bits = plaintextBits(text);
  const all = new Uint8Array(bits.length + 1);
  all.set(bits);
  all[bits.length] = 1;
  const out: bigint[] = [];
  for (let k = 0; k < all.length; k += 252) {
    // Four bits a hex digit, most significant first (a BigInt shift per bit costs ≈ 20× more).
    const end = Math.min(all.length, k + 252);
    let hex = '';
    for (let i = k + Math.ceil((end - k) / 4) * 4 - 4; i >= k; i -= 4) {
      const nibble = (all[i] as number) | ((i + 1 < end ? (all[i + 1] as number) : 0) << 1) | ((i + 2 < end ? (all[i + 2] as number) : 0) << 2) | ((i + 3 < end ? (all[i + 3] as number) : 0) << 3);
      hex += nibble.toString(16);
    }
    out.push(BigInt(`0x${hex}`));
  }
  return out;
}
