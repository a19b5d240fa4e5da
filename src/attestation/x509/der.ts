/**
 * A strict, allocation-light DER reader: just enough ASN.1 for X.509 extensions, CRLs and the
 * Intel PCK SGX extension. Every length is checked against its container; indefinite lengths,
 * non-minimal length encodings and high tag numbers are refused (DER forbids or never needs them).
 */
import type { DomainCode } from '../../errorCodes.js';
import { VerifierError } from '../../errors.js';

export type DerCode = DomainCode<'der'>;

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUMERATED: 0x0a,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

export interface Tlv {
  /** The identifier octet (class, constructed bit and tag number < 31). */
  readonly tag: number;
  /** Offset of the identifier octet in `buf`. */
  readonly start: number;
  /** Offset of the first content octet. */
  readonly valueStart: number;
  /** Offset just past the last content octet. */
  readonly end: number;
  readonly buf: Uint8Array;
}

function fail(msg: string): never {
  throw new VerifierError<DerCode>('DER_MALFORMED', `DER: ${msg}`);
}

/** Reads one TLV at `offset`, which must end at or before `limit`. */
export function readTlv(buf: Uint8Array, offset = 0, limit = buf.length): Tlv {
  if (offset + 2 > limit) fail(`truncated header at offset ${offset}`);
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) fail(`high tag number form at offset ${offset}`);
  let len = buf[offset + 1]!;
  let p = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0) fail(`indefinite length at offset ${offset}`);
    if (n > 4) fail(`length of ${n} octets at offset ${offset}`);
    if (p + n > limit) fail(`truncated length at offset ${offset}`);
    if (buf[p] === 0) fail(`non-minimal length at offset ${offset}`);
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    if (len < 0x80) fail(`non-minimal length at offset ${offset}`);
    p += n;
  }
  const end = p + len;
  if (end > limit) fail(`content of ${len} bytes at offset ${offset} overruns its container`);
  return { tag, start: offset, valueStart: p, end, buf };
}

/** Parses the complete TLV in `buf` (no trailing bytes allowed). */
export function parseDer(buf: Uint8Array): Tlv {
  const t = readTlv(buf, 0, buf.length);
  if (t.end !== buf.length) fail(`${buf.length - t.end} trailing bytes after the top-level element`);
  return t;
}

export function expectTag(t: Tlv, tag: number, what: string): Tlv {
  if (t.tag !== tag) fail(`${what}: expected tag 0x${tag.toString(16)}, got 0x${t.tag.toString(16)}`);
  return t;
}

/** The children of a constructed TLV; its content must be exactly a sequence of TLVs. */
export function children(t: Tlv): Tlv[] {
  if (!(t.tag & 0x20)) fail(`tag 0x${t.tag.toString(16)} is not constructed`);
  const out: Tlv[] = [];
  let p = t.valueStart;
  while (p < t.end) {
    const c = readTlv(t.buf, p, t.end);
    out.push(c);
    p = c.end;
  }
  return out;
}

export function value(t: Tlv): Uint8Array {
  return t.buf.subarray(t.valueStart, t.end);
}

/** The whole encoding of the TLV (identifier, length and content). */
export function encoded(t: Tlv): Uint8Array {
  return t.buf.subarray(t.start, t.end);
}

export function readOid(t: Tlv): string {
  expectTag(t, TAG.OID, 'OID');
  const v = value(t);
  if (v.length === 0) fail('empty OID');
  const parts: number[] = [];
  let acc = 0;
  let started = false;
  for (let i = 0; i < v.length; i++) {
    const b = v[i]!;
    if (!started && b === 0x80) fail('non-minimal OID arc');
    started = true;
    acc = acc * 128 + (b & 0x7f);
    if (acc > Number.MAX_SAFE_INTEGER) fail('OID arc too large');
    if (!(b & 0x80)) {
      if (parts.length === 0) {
        const first = acc < 80 ? Math.floor(acc / 40) : 2;
        parts.push(first, acc - first * 40);
      } else parts.push(acc);
      acc = 0;
      started = false;
    }
  }
  if (started) fail('truncated OID arc');
  return parts.join('.');
}

/** A non-negative INTEGER (or ENUMERATED) as bigint; negative values are refused. */
export function readUInt(t: Tlv, tag: number = TAG.INTEGER): bigint {
  expectTag(t, tag, 'INTEGER');
  const v = value(t);
  if (v.length === 0) fail('empty INTEGER');
  if (v[0]! & 0x80) fail('negative INTEGER');
  if (v.length > 1 && v[0] === 0 && !(v[1]! & 0x80)) fail('non-minimal INTEGER');
  let n = 0n;
  for (const b of v) n = (n << 8n) | BigInt(b);
  return n;
}

/** A small non-negative INTEGER as a number. */
export function readSmallUInt(t: Tlv, tag: number = TAG.INTEGER): number {
  const n = readUInt(t, tag);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) fail('INTEGER too large');
  return Number(n);
}

export function readBoolean(t: Tlv): boolean {
  expectTag(t, TAG.BOOLEAN, 'BOOLEAN');
  const v = value(t);
  if (v.length !== 1 || (v[0] !== 0 && v[0] !== 0xff)) fail('BOOLEAN not DER-encoded');
  return v[0] === 0xff;
}

export function readOctetString(t: Tlv): Uint8Array {
  expectTag(t, TAG.OCTET_STRING, 'OCTET STRING');
  return value(t);
}

/** BIT STRING content without the unused-bits octet; only whole-octet strings are accepted unless `allowUnused`. */
export function readBitString(t: Tlv, allowUnused = false): { bytes: Uint8Array; unusedBits: number } {
  expectTag(t, TAG.BIT_STRING, 'BIT STRING');
  const v = value(t);
  if (v.length === 0) fail('empty BIT STRING');
  const unusedBits = v[0]!;
  if (unusedBits > 7 || (unusedBits && v.length === 1)) fail('bad BIT STRING padding');
  if (unusedBits && !allowUnused) fail('BIT STRING with unused bits');
  return { bytes: v.subarray(1), unusedBits };
}

const ascii = new TextDecoder('latin1');

/** UTCTime (YYMMDDHHMMSSZ, 1950–2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) as epoch milliseconds. */
export function readTime(t: Tlv): number {
  const s = ascii.decode(value(t));
  let m: RegExpExecArray | null;
  let year: number;
  if (t.tag === TAG.UTC_TIME) {
    m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) fail(`bad UTCTime "${s}"`);
    const yy = Number(m[1]);
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
  } else if (t.tag === TAG.GENERALIZED_TIME) {
    m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) fail(`bad GeneralizedTime "${s}"`);
    year = Number(m[1]);
  } else fail(`expected a time, got tag 0x${t.tag.toString(16)}`);
  const [mo, d, h, mi, se] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(year, mo - 1, d, h, mi, se);
  const back = new Date(ms);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || se > 59) fail(`invalid date "${s}"`);
  return ms;
}
