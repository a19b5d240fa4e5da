/**
 * Bech32m (BIP 350), the text form of Aleo's ids and addresses: `ab1…` block hashes, `sr1…` state
 * roots, `at1…` transaction ids, `au1…` transition ids, `aleo1…` addresses. Each carries 32 bytes,
 * the little-endian encoding of a field element (an address: its point's x-coordinate).
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32M_CONST = 0x2bc830a3;
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i] as number;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

function convertBits(data: readonly number[], from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const max = (1 << to) - 1;
  for (const v of data) {
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & max);
    }
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & max);
  } else if (bits >= from || ((acc << (to - bits)) & max) !== 0) {
    return null;
  }
  return out;
}

/** The bytes of a Bech32m string with the given prefix, or a reason it is not one. */
export function decodeBech32m(text: string, hrp: string): Uint8Array | string {
  if (typeof text !== 'string' || text.length > 400) return 'not a bech32m string';
  if (text !== text.toLowerCase()) return 'not lower case';
  const sep = text.lastIndexOf('1');
  if (sep < 1 || text.slice(0, sep) !== hrp) return `does not start with "${hrp}1"`;
  const data: number[] = [];
  for (const c of text.slice(sep + 1)) {
    const v = CHARSET.indexOf(c);
    if (v < 0) return `"${c}" is not a bech32 character`;
    data.push(v);
  }
  if (data.length < 6) return 'too short';
  if (polymod([...hrpExpand(hrp), ...data]) !== BECH32M_CONST) return 'its checksum does not match';
  const bytes = convertBits(data.slice(0, -6), 5, 8, false);
  return bytes === null ? 'its padding is not zero' : Uint8Array.from(bytes);
}

export function encodeBech32m(hrp: string, bytes: Uint8Array): string {
  const data = convertBits(Array.from(bytes), 8, 5, true) as number[];
  const mod = polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ BECH32M_CONST;
  const checksum: number[] = [];
  for (let i = 0; i < 6; i++) checksum.push((mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((v) => CHARSET[v]).join('')}`;
}

export function leBytesToBigInt(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i] as number);
  return x;
}

export function bigIntToLeBytes(x: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let v = x;
  for (let i = 0; i < length; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}
