/**
 * A tiny CBOR encoder for tests (shortest-form heads). Maps are JS Maps (insertion order kept);
 * `indefinite(x)` encodes an array or map with indefinite length; `raw(bytes)` splices bytes in.
 */
export type CborInput =
  | number
  | bigint
  | string
  | Uint8Array
  | boolean
  | null
  | undefined
  | readonly CborInput[]
  | ReadonlyMap<CborInput, CborInput>
  | Indefinite
  | Raw
  | Tagged;

export class Indefinite {
  constructor(readonly value: readonly CborInput[] | ReadonlyMap<CborInput, CborInput>) {}
}
export class Raw {
  constructor(readonly bytes: Uint8Array) {}
}
export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: CborInput,
  ) {}
}
export const indefinite = (v: readonly CborInput[] | ReadonlyMap<CborInput, CborInput>): Indefinite => new Indefinite(v);
export const raw = (b: Uint8Array): Raw => new Raw(b);
export const tagged = (tag: number, v: CborInput): Tagged => new Tagged(tag, v);

export function head(major: number, n: number | bigint): Uint8Array {
  const m = major << 5;
  const v = BigInt(n);
  if (v < 24n) return Uint8Array.of(m | Number(v));
  if (v < 0x100n) return Uint8Array.of(m | 24, Number(v));
  if (v < 0x10000n) return Uint8Array.of(m | 25, Number(v >> 8n), Number(v & 0xffn));
  if (v < 0x1_0000_0000n) {
    const b = new Uint8Array(5);
    b[0] = m | 26;
    new DataView(b.buffer).setUint32(1, Number(v));
    return b;
  }
  const b = new Uint8Array(9);
  b[0] = m | 27;
  new DataView(b.buffer).setBigUint64(1, v);
  return b;
}

function enc(v: CborInput, out: Uint8Array[]): void {
  if (v instanceof Raw) out.push(v.bytes);
  else if (v instanceof Tagged) {
    out.push(head(6, v.tag));
    enc(v.value, out);
  } else if (v instanceof Indefinite) {
    if (v.value instanceof Map) {
      out.push(Uint8Array.of(0xbf));
      for (const [k, x] of v.value) {
        enc(k, out);
        enc(x, out);
      }
    } else {
      out.push(Uint8Array.of(0x9f));
      for (const x of v.value as readonly CborInput[]) enc(x, out);
    }
    out.push(Uint8Array.of(0xff));
  } else if (v === null) out.push(Uint8Array.of(0xf6));
  else if (v === undefined) out.push(Uint8Array.of(0xf7));
  else if (v === false) out.push(Uint8Array.of(0xf4));
  else if (v === true) out.push(Uint8Array.of(0xf5));
  else if (typeof v === 'number' || typeof v === 'bigint') {
    if (typeof v === 'number' && !Number.isInteger(v)) throw new Error('floats are not supported');
    const b = BigInt(v);
    out.push(b >= 0n ? head(0, b) : head(1, -1n - b));
  } else if (typeof v === 'string') {
    const b = new TextEncoder().encode(v);
    out.push(head(3, b.length), b);
  } else if (v instanceof Uint8Array) out.push(head(2, v.length), v);
  else if (v instanceof Map) {
    out.push(head(5, v.size));
    for (const [k, x] of v) {
      enc(k, out);
      enc(x, out);
    }
  } else if (Array.isArray(v)) {
    out.push(head(4, v.length));
    for (const x of v) enc(x, out);
  } else throw new Error('unsupported value');
}

export function encodeCbor(v: CborInput): Uint8Array {
  const out: Uint8Array[] = [];
  enc(v, out);
  return new Uint8Array(Buffer.concat(out));
}
