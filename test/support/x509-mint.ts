/**
 * Minting X.509 v3 test certificates with a small DER writer and node:crypto (ECDSA P-256/P-384).
 * Every field is controllable (critical flags, pathLen, keyUsage, extra extensions, validity,
 * signature algorithm), so tests can build exactly the broken certificate they need.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

// ---- DER writer -----------------------------------------------------------------------------
function len(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(content);
  return new Uint8Array(Buffer.concat([Uint8Array.of(tag), len(body.length), body]));
}
export const seq = (...c: Uint8Array[]): Uint8Array => tlv(0x30, ...c);
export const set = (...c: Uint8Array[]): Uint8Array => tlv(0x31, ...c);
export const explicit = (n: number, ...c: Uint8Array[]): Uint8Array => tlv(0xa0 | n, ...c);
export const bool = (b: boolean): Uint8Array => tlv(0x01, Uint8Array.of(b ? 0xff : 0));
export const octets = (b: Uint8Array): Uint8Array => tlv(0x04, b);
export const bits = (b: Uint8Array, unused = 0): Uint8Array => tlv(0x03, Uint8Array.of(unused), b);
export const utf8 = (s: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(s));
export const printable = (s: string): Uint8Array => tlv(0x13, new TextEncoder().encode(s));
/** A non-negative INTEGER (or, with tag 0x0a, an ENUMERATED). */
/** A DER INTEGER, minimal; negative values in two's complement (−255 is ff01). */
export function integer(v: bigint | number, tag = 0x02): Uint8Array {
  let n = BigInt(v);
  if (n < 0n) {
    const neg: number[] = [];
    do {
      neg.unshift(Number(n & 0xffn));
      n >>= 8n;
    } while (n !== -1n || !(neg[0]! & 0x80));
    return tlv(tag, Uint8Array.from(neg));
  }
  const bytes: number[] = [];
  do {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  } while (n > 0n);
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(tag, Uint8Array.from(bytes));
}
export function oid(s: string): Uint8Array {
  const arcs = s.split('.').map(BigInt);
  const out: number[] = [];
  const push = (v: bigint): void => {
    const g: number[] = [Number(v & 0x7fn)];
    for (v >>= 7n; v > 0n; v >>= 7n) g.unshift(Number(v & 0x7fn) | 0x80);
    out.push(...g);
  };
  push(arcs[0]! * 40n + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return tlv(0x06, Uint8Array.from(out));
}
export function time(ms: number): Uint8Array {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const p = (n: number): string => String(n).padStart(2, '0');
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return y >= 1950 && y < 2050 ? tlv(0x17, new TextEncoder().encode(`${p(y % 100)}${rest}`)) : tlv(0x18, new TextEncoder().encode(`${y}${rest}`));
}

// ---- certificates ---------------------------------------------------------------------------
export const OIDS = {
  cn: '2.5.4.3',
  c: '2.5.4.6',
  o: '2.5.4.10',
  ou: '2.5.4.11',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
} as const;

/** KeyUsage bit numbers (RFC 5280): digitalSignature 0 … keyCertSign 5, cRLSign 6. */
export function keyUsageExt(bitNumbers: number[], critical = true): MintExtension {
  const max = Math.max(...bitNumbers);
  const bytes = new Uint8Array((max >> 3) + 1);
  for (const b of bitNumbers) bytes[b >> 3]! |= 0x80 >> (b & 7);
  const unused = 7 - (max & 7);
  return { oid: OIDS.keyUsage, critical, value: bits(bytes, unused) };
}

export function basicConstraintsExt(ca: boolean, pathLen?: number, critical = true): MintExtension {
  const parts = [...(ca ? [bool(true)] : []), ...(pathLen !== undefined ? [integer(pathLen)] : [])];
  return { oid: OIDS.basicConstraints, critical, value: seq(...parts) };
}

export interface MintExtension {
  readonly oid: string;
  readonly critical: boolean;
  /** DER of the extension value (wrapped into extnValue OCTET STRING). */
  readonly value: Uint8Array;
}

/** A Name of printable/UTF-8 attributes, e.g. `name({ C: 'US', O: 'Test', CN: 'leaf' })`. */
export function name(attrs: Record<string, string>): Uint8Array {
  const map: Record<string, string> = { C: OIDS.c, O: OIDS.o, OU: OIDS.ou, CN: OIDS.cn };
  return seq(
    ...Object.entries(attrs).map(([k, v]) => set(seq(oid(map[k] ?? k), k === 'C' ? printable(v) : utf8(v)))),
  );
}

export type Curve = 'P-256' | 'P-384';
export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}
/**
 * A new EC key pair. The pair is generated as DER and made into key objects of its own: a key
 * object straight from generateKeyPairSync shares its lock with the generation job, and Node 20
 * deadlocks when a garbage collection during that key's export (`export({ format: 'jwk' })`
 * allocates while holding the lock) destroys the job, whose destructor takes the same lock (seen
 * once in CI: the test process stuck in a futex under ExportJWKEcKey → ~KeyGenJob; nodejs/node
 * #64851 reworks these locks).
 */
export function generateEcKey(curve: Curve): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: curve === 'P-256' ? 'prime256v1' : 'secp384r1',
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    publicKeyEncoding: { type: 'spki', format: 'der' },
  });
  return { privateKey: createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }), publicKey: createPublicKey({ key: publicKey, format: 'der', type: 'spki' }) };
}

export interface MintCertificateOptions {
  readonly subject: Uint8Array;
  readonly issuer: Uint8Array;
  readonly subjectKey: KeyObject;
  /** Private key of the issuer. */
  readonly issuerKey: KeyObject;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly serial?: bigint | number;
  /** Default: SHA-384 for a P-384 issuer key, SHA-256 otherwise. */
  readonly hash?: 'sha256' | 'sha384';
  /** Overrides the signatureAlgorithm OID (the signature is still made with `hash`). */
  readonly signatureAlgorithmOid?: string;
  readonly extensions?: readonly MintExtension[];
}

let serialCounter = 1000n;

export function mintCertificate(o: MintCertificateOptions): Uint8Array {
  const issuerKey = o.issuerKey;
  const hash = o.hash ?? (issuerKey.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'sha384' : 'sha256');
  const algOid = o.signatureAlgorithmOid ?? (hash === 'sha384' ? OIDS.ecdsaWithSha384 : OIDS.ecdsaWithSha256);
  const alg = seq(oid(algOid));
  const spki = new Uint8Array(o.subjectKey.export({ format: 'der', type: 'spki' }));
  const exts = o.extensions ?? [];
  const tbs = seq(
    explicit(0, integer(2)),
    integer(o.serial ?? serialCounter++),
    alg,
    o.issuer,
    seq(time(o.notBefore), time(o.notAfter)),
    o.subject,
    spki,
    ...(exts.length
      ? [explicit(3, seq(...exts.map((e) => seq(oid(e.oid), ...(e.critical ? [bool(true)] : []), octets(e.value)))))]
      : []),
  );
  const signature = sign(hash, tbs, { key: issuerKey, dsaEncoding: 'der' });
  return seq(tbs, alg, bits(new Uint8Array(signature)));
}

export function toPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

export interface MintedCa {
  readonly der: Uint8Array;
  readonly name: Uint8Array;
  readonly key: KeyPair;
}

/** A CA certificate (basicConstraints CA, keyUsage keyCertSign+cRLSign), self-signed when `issuer` is absent. */
export function mintCa(o: {
  subject: Uint8Array;
  curve?: Curve;
  issuer?: MintedCa;
  notBefore: number;
  notAfter: number;
  pathLen?: number;
  extensions?: readonly MintExtension[];
}): MintedCa {
  const key = generateEcKey(o.curve ?? 'P-384');
  const der = mintCertificate({
    subject: o.subject,
    issuer: o.issuer?.name ?? o.subject,
    subjectKey: key.publicKey,
    issuerKey: o.issuer?.key.privateKey ?? key.privateKey,
    notBefore: o.notBefore,
    notAfter: o.notAfter,
    extensions: o.extensions ?? [basicConstraintsExt(true, o.pathLen), keyUsageExt([0, 5, 6])],
  });
  return { der, name: o.subject, key };
}
