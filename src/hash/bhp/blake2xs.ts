/**
 * BLAKE2s with its full parameter block, and snarkVM's BLAKE2Xs construction on it
 * (`console/algorithms/src/blake2xs`): the XOF that seeds BHP's bases. node:crypto's blake2s256
 * fixes the parameter block, so the compression is written out here (RFC 7693).
 */

const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
] as const;

/** The BLAKE2s parameter block's fields (RFC 7693 §2.5; BLAKE2 paper §2.8). */
export interface Blake2sParams {
  digestLength: number;
  fanout?: number;
  maxDepth?: number;
  maxLeafLength?: number;
  /** 48 bits. */
  nodeOffset?: bigint;
  nodeDepth?: number;
  innerLength?: number;
  /** At most 8 bytes, zero-padded. */
  personal?: Uint8Array;
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}

function compress(h: Uint32Array, block: Uint8Array, t: number, last: boolean): void {
  const m = new Uint32Array(16);
  for (let i = 0; i < 16; i++) {
    m[i] = (block[4 * i] as number) | ((block[4 * i + 1] as number) << 8) | ((block[4 * i + 2] as number) << 16) | ((block[4 * i + 3] as number) << 24);
  }
  const v = new Uint32Array(16);
  v.set(h, 0);
  v.set(IV, 8);
  v[12] = (v[12] as number) ^ (t >>> 0);
  v[13] = (v[13] as number) ^ Math.floor(t / 0x1_0000_0000);
  if (last) v[14] = ~(v[14] as number);
  const g = (a: number, b: number, c: number, d: number, x: number, y: number): void => {
    v[a] = (v[a] as number) + (v[b] as number) + x;
    v[d] = rotr((v[d] as number) ^ (v[a] as number), 16);
    v[c] = (v[c] as number) + (v[d] as number);
    v[b] = rotr((v[b] as number) ^ (v[c] as number), 12);
    v[a] = (v[a] as number) + (v[b] as number) + y;
    v[d] = rotr((v[d] as number) ^ (v[a] as number), 8);
    v[c] = (v[c] as number) + (v[d] as number);
    v[b] = rotr((v[b] as number) ^ (v[c] as number), 7);
  };
  for (let r = 0; r < 10; r++) {
    const s = SIGMA[r] as readonly number[];
    const w = (i: number): number => m[s[i] as number] as number;
    g(0, 4, 8, 12, w(0), w(1));
    g(1, 5, 9, 13, w(2), w(3));
    g(2, 6, 10, 14, w(4), w(5));
    g(3, 7, 11, 15, w(6), w(7));
    g(0, 5, 10, 15, w(8), w(9));
    g(1, 6, 11, 12, w(10), w(11));
    g(2, 7, 8, 13, w(12), w(13));
    g(3, 4, 9, 14, w(14), w(15));
  }
  for (let i = 0; i < 8; i++) h[i] = (h[i] as number) ^ (v[i] as number) ^ (v[i + 8] as number);
}

/** Unkeyed BLAKE2s of `input` under the given parameter block. */
export function blake2s(input: Uint8Array, params: Blake2sParams): Uint8Array {
  const { digestLength } = params;
  if (!Number.isInteger(digestLength) || digestLength < 1 || digestLength > 32) throw new RangeError(`BLAKE2s digest length ${digestLength}`);
  const personal = params.personal ?? new Uint8Array(0);
  if (personal.length > 8) throw new RangeError('BLAKE2s personalization is at most 8 bytes');
  const nodeOffset = params.nodeOffset ?? 0n;
  if (nodeOffset < 0n || nodeOffset >= 1n << 48n) throw new RangeError('BLAKE2s node offset is 48 bits');
  const block = new Uint8Array(32);
  block[0] = digestLength;
  block[1] = 0; // key length
  block[2] = params.fanout ?? 1;
  block[3] = params.maxDepth ?? 1;
  new DataView(block.buffer).setUint32(4, params.maxLeafLength ?? 0, true);
  for (let i = 0; i < 6; i++) block[8 + i] = Number((nodeOffset >> BigInt(8 * i)) & 0xffn);
  block[14] = params.nodeDepth ?? 0;
  block[15] = params.innerLength ?? 0;
  block.set(personal, 24);
  const h = new Uint32Array(8);
  const pv = new DataView(block.buffer);
  for (let i = 0; i < 8; i++) h[i] = (IV[i] as number) ^ pv.getUint32(4 * i, true);

  let offset = 0;
  const buf = new Uint8Array(64);
  while (input.length - offset > 64) {
    compress(h, input.subarray(offset, offset + 64), offset + 64, false);
    offset += 64;
  }
  buf.fill(0);
  buf.set(input.subarray(offset));
  compress(h, buf, input.length, true);
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(4 * i, h[i] as number, true);
  return out.slice(0, digestLength);
}

/** snarkVM `Blake2Xs::evaluate(input, xof_digest_length, persona)`. */
export function blake2xs(input: Uint8Array, xofLength: number, persona: Uint8Array): Uint8Array {
  if (!Number.isInteger(xofLength) || xofLength < 1 || xofLength > 0xffff) throw new RangeError(`BLAKE2Xs output length ${xofLength}`);
  const lengthOffset = BigInt(xofLength) << 32n;
  const root = blake2s(input, { digestLength: 32, nodeOffset: lengthOffset, personal: persona });
  const out = new Uint8Array(xofLength);
  const rounds = Math.floor((xofLength + 31) / 32);
  for (let i = 0; i < rounds; i++) {
    const last = i === rounds - 1;
    const len = last && xofLength % 32 !== 0 ? xofLength % 32 : 32;
    const part = blake2s(root, {
      digestLength: len,
      fanout: 0,
      maxDepth: 0,
      maxLeafLength: 32,
      nodeOffset: lengthOffset | BigInt(i),
      innerLength: 32,
      personal: persona,
    });
    out.set(part, 32 * i);
  }
  return out;
}
