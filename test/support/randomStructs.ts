/**
 * Deterministic random chunked-struct messages for the kernel differential tests: 8 or 10 chunks
 * (userData / report sizes), dense random bytes, sparse (a few non-zero bytes), all 0xff and
 * u128 values just below 2^128 (the largest member values), by seed.
 */
function xorshift(seed: number): () => number {
  let s = (seed * 2654435761 + 0x9e3779b9) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

export const STRUCT_KINDS = ['dense', 'sparse', 'all-ones', 'near-max'] as const;

export function randomStruct(seed: number): Uint8Array {
  const next = xorshift(seed);
  const chunks = seed % 2 === 0 ? 8 : 10;
  const kind = STRUCT_KINDS[Math.floor(seed / 2) % STRUCT_KINDS.length];
  const bytes = new Uint8Array(chunks * 512);
  switch (kind) {
    case 'dense':
      for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
      break;
    case 'sparse':
      for (let n = 1 + (next() % 6); n > 0; n--) bytes[next() % bytes.length] = 1 + (next() % 255);
      break;
    case 'all-ones':
      bytes.fill(0xff);
      break;
    case 'near-max':
      // every u128 member is 2^128 − 1 − small
      bytes.fill(0xff);
      for (let g = 0; g < bytes.length; g += 16) bytes[g] = 0xff - (next() & 0x0f);
      break;
  }
  return bytes;
}
