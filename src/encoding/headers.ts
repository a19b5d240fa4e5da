/**
 * Request headers section: a first block (entry count u64 LE, following block count u64 LE), then
 * entries sorted by key in UTF-8 byte order, each u16 LE length + "key:value" padded to 16 bytes.
 */
import { VerifierError } from '../errors.js';
import { BLOCK, BlockWriter, decodeUtf8, encodeUtf8, expectZero, paddedLength, readU16LE, readU64LE, writeU16LE, writeU64LE } from './blocks.js';
import type { ProofDataCode, ProofDataEncodeCode } from './errors.js';

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Encodes the headers section (always at least the first block). */
export function encodeHeaders(headers: Record<string, string> | undefined): Uint8Array {
  const entries = Object.entries(headers ?? {}).map(([k, v]) => ({ key: encodeUtf8(k), entry: encodeUtf8(`${k}:${v}`) }));
  entries.sort((a, b) => compareBytes(a.key, b.key));
  const body = new BlockWriter();
  for (const { entry } of entries) {
    if (entry.length > 0xffff) {
      throw new VerifierError<ProofDataEncodeCode>('ENCODE_FIELD_TOO_LONG', `headers: entry of ${entry.length} bytes exceeds 65535`);
    }
    const item = new Uint8Array(2 + entry.length);
    writeU16LE(item, 0, entry.length);
    item.set(entry, 2);
    body.push(item);
  }
  const first = new Uint8Array(BLOCK);
  writeU64LE(first, 0, BigInt(entries.length));
  writeU64LE(first, 8, BigInt(body.length / BLOCK));
  const out = new Uint8Array(BLOCK + body.length);
  out.set(first);
  out.set(body.concat(), BLOCK);
  return out;
}

function bad(message: string): never {
  throw new VerifierError<ProofDataCode>('PROOF_DATA_BAD_HEADERS', `proof data headers: ${message}`);
}

/**
 * Decodes the headers section (`section` = its bytes, `base` = its offset in the buffer, for
 * messages). Returns the headers sorted by key in UTF-8 byte order.
 */
export function decodeHeaders(section: Uint8Array, base: number): Array<[string, string]> {
  const count = readU64LE(section, 0);
  const following = readU64LE(section, 8);
  const available = BigInt(section.length / BLOCK - 1);
  if (following !== available) {
    bad(`first block at offset ${base} announces ${following} following blocks, the section holds ${available}`);
  }
  if (count > available) bad(`entry count ${count} exceeds the ${available} following blocks`);
  const out: Array<[string, string, Uint8Array]> = [];
  const seen = new Set<string>();
  let pos = BLOCK;
  for (let i = 0; i < Number(count); i++) {
    if (pos + 2 > section.length) bad(`entry ${i} at offset ${base + pos} starts past the section end (${base + section.length})`);
    const len = readU16LE(section, pos);
    const end = pos + 2 + len;
    const next = pos + paddedLength(2 + len);
    if (next > section.length) bad(`entry ${i} at offset ${base + pos} (${len} bytes) overruns the section end (${base + section.length})`);
    expectZero(section, end, next, `headers entry ${i}`);
    const raw = section.subarray(pos + 2, end);
    const colon = raw.indexOf(0x3a);
    if (colon < 0) bad(`entry ${i} at offset ${base + pos} has no ':'`);
    if (colon === 0) bad(`entry ${i} at offset ${base + pos} has an empty key`);
    const keyBytes = raw.subarray(0, colon);
    const key = decodeUtf8(keyBytes);
    if (seen.has(key)) bad(`entry ${i} at offset ${base + pos} repeats key ${JSON.stringify(key)}`);
    seen.add(key);
    out.push([key, decodeUtf8(raw.subarray(colon + 1)), keyBytes]);
    pos = next;
  }
  if (pos !== section.length) bad(`${(section.length - pos) / BLOCK} block(s) left over after ${count} entries at offset ${base + pos}`);
  out.sort((a, b) => compareBytes(a[2], b[2]));
  return out.map(([k, v]) => [k, v]);
}
