/**
 * A throw-away Intel-shaped PKI for typeA tests: a test root named like the Intel SGX Root CA, a
 * PCK Processor CA, a PCK leaf carrying a correct SGX extension, a TCB Signing certificate, both
 * CRLs, signed TCB info / QE identity bodies and signed quotes v3. Everything is minted with
 * node:crypto P-256 keys and a small DER writer, so any field can be varied for negative tests.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';
import { parseCertificate, type Certificate } from '../../src/attestation/x509/certificate.js';
import type { Collateral } from '../../src/attestation/typeA/collateral.js';

import { bits as bitString, bool, explicit, generateEcKey, integer as int, octets, oid, printable, seq, set, time as utcTime, utf8, type KeyPair } from './x509-mint.js';

// ---------- X.509 ----------
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

export function name(cn: string): Uint8Array {
  const rdn = (o: string, v: Uint8Array): Uint8Array => set(seq(oid(o), v));
  return seq(
    rdn('2.5.4.3', utf8(cn)),
    rdn('2.5.4.10', utf8('Intel Corporation')),
    rdn('2.5.4.7', utf8('Santa Clara')),
    rdn('2.5.4.8', utf8('CA')),
    rdn('2.5.4.6', printable('US')),
  );
}

function extension(o: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? seq(oid(o), bool(true), octets(value)) : seq(oid(o), octets(value));
}

function keyUsage(bits: number[]): Uint8Array {
  let v = 0;
  for (const b of bits) v |= 0x80 >> b;
  let unused = 0;
  while (unused < 7 && !(v & (1 << unused))) unused++;
  return bitString(Uint8Array.of(v), unused);
}

export type { KeyPair };
/** A new P-256 key pair (generateEcKey: key objects that share no lock with their generation job). */
export const newKey = (): KeyPair => generateEcKey('P-256');

export interface Issued {
  readonly cert: Certificate;
  readonly key: KeyPair;
  readonly pem: string;
}

export interface CertSpec {
  readonly subject: string;
  readonly issuer: Issued | 'self';
  readonly serial: bigint;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly ca: boolean;
  readonly pathLen?: number;
  readonly extraExtensions?: Uint8Array[];
  readonly key?: KeyPair;
}

export function toPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export function issue(spec: CertSpec): Issued {
  const key = spec.key ?? newKey();
  const issuerName = spec.issuer === 'self' ? name(spec.subject) : new Uint8Array(spec.issuer.cert.subject);
  const signer = spec.issuer === 'self' ? key.privateKey : spec.issuer.key.privateKey;
  const bc = spec.ca ? seq(bool(true), ...(spec.pathLen !== undefined ? [int(spec.pathLen)] : [])) : seq();
  const exts = [
    extension('2.5.29.19', true, bc),
    extension('2.5.29.15', true, keyUsage(spec.ca ? [5, 6] : [0, 1])),
    ...(spec.extraExtensions ?? []),
  ];
  const spki = new Uint8Array(key.publicKey.export({ format: 'der', type: 'spki' }));
  const tbs = seq(
    explicit(0, int(2)),
    int(spec.serial),
    ECDSA_SHA256,
    issuerName,
    seq(utcTime(spec.notBefore), utcTime(spec.notAfter)),
    name(spec.subject),
    spki,
    explicit(3, seq(...exts)),
  );
  const sig = sign('sha256', tbs, { key: signer, dsaEncoding: 'der' });
  const der = seq(tbs, ECDSA_SHA256, bitString(sig));
  return { cert: parseCertificate(der), key, pem: toPem(der) };
}

/** A CRL of `issuer` listing `revoked`, each entry dated `revokedOn` (default thisUpdate). */
export function crl(issuer: Issued, thisUpdate: number, nextUpdate: number, revoked: bigint[], revokedOn = thisUpdate): Uint8Array {
  const entries = revoked.map((s) => seq(int(s), utcTime(revokedOn)));
  const tbs = seq(
    int(1),
    ECDSA_SHA256,
    new Uint8Array(issuer.cert.subject),
    utcTime(thisUpdate),
    utcTime(nextUpdate),
    ...(entries.length ? [seq(...entries)] : []),
    explicit(0, seq(extension('2.5.29.20', false, int(1)))),
  );
  const sig = sign('sha256', tbs, { key: issuer.key.privateKey, dsaEncoding: 'der' });
  return seq(tbs, ECDSA_SHA256, bitString(sig));
}

// ---------- SGX PCK extension ----------
export const SGX_OID = '1.2.840.113741.1.13.1';

export interface PckTcb {
  readonly components: readonly number[];
  readonly pceSvn: number;
  readonly fmspc: string; // 12 hex
  readonly pceId: string; // 4 hex
  readonly sgxType?: number;
}

export function sgxExtensionValue(t: PckTcb): Uint8Array {
  const kv = (o: string, v: Uint8Array): Uint8Array => seq(oid(o), v);
  const O = SGX_OID;
  return seq(
    kv(`${O}.1`, octets(new Uint8Array(16).fill(0xab))),
    kv(
      `${O}.2`,
      seq(
        ...t.components.map((c, i) => kv(`${O}.2.${i + 1}`, int(c))),
        kv(`${O}.2.17`, int(t.pceSvn)),
        kv(`${O}.2.18`, octets(Uint8Array.from(t.components))),
      ),
    ),
    kv(`${O}.3`, octets(Buffer.from(t.pceId, 'hex'))),
    kv(`${O}.4`, octets(Buffer.from(t.fmspc, 'hex'))),
    kv(`${O}.5`, int(t.sgxType ?? 0, 0x0a)),
  );
}

// ---------- signed collateral bodies ----------
export interface TcbLevelSpec {
  readonly components: readonly number[];
  readonly pceSvn: number;
  readonly status: string;
  readonly date?: string;
  readonly advisoryIDs?: string[];
}

const isoSec = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

export function tcbInfoBody(o: { fmspc: string; pceId: string; issueDate: number; nextUpdate: number; levels: readonly TcbLevelSpec[] }): string {
  return JSON.stringify({
    id: 'SGX',
    version: 3,
    issueDate: isoSec(o.issueDate),
    nextUpdate: isoSec(o.nextUpdate),
    fmspc: o.fmspc,
    pceId: o.pceId,
    tcbType: 0,
    tcbEvaluationDataNumber: 20,
    tcbLevels: o.levels.map((l) => ({
      tcb: { sgxtcbcomponents: l.components.map((svn) => ({ svn })), pcesvn: l.pceSvn },
      tcbDate: l.date ?? '2025-01-01T00:00:00Z',
      tcbStatus: l.status,
      ...(l.advisoryIDs ? { advisoryIDs: l.advisoryIDs } : {}),
    })),
  });
}

export const QE_MRSIGNER = '8C4F5775D796503E96137F77C68A829A0056AC8DED70140B081B094490C57BFF';

export function qeIdentityBody(o: { issueDate: number; nextUpdate: number; levels: { isvsvn: number; status: string; advisoryIDs?: string[] }[] }): string {
  return JSON.stringify({
    id: 'QE',
    version: 2,
    issueDate: isoSec(o.issueDate),
    nextUpdate: isoSec(o.nextUpdate),
    tcbEvaluationDataNumber: 20,
    miscselect: '00000000',
    miscselectMask: 'FFFFFFFF',
    attributes: '11000000000000000000000000000000',
    attributesMask: 'FBFFFFFFFFFFFFFF0000000000000000',
    mrsigner: QE_MRSIGNER,
    isvprodid: 1,
    tcbLevels: o.levels.map((l) => ({
      tcb: { isvsvn: l.isvsvn },
      tcbDate: '2025-01-01T00:00:00Z',
      tcbStatus: l.status,
      ...(l.advisoryIDs ? { advisoryIDs: l.advisoryIDs } : {}),
    })),
  });
}

export function signBody(body: string, key: KeyPair): string {
  return sign('sha256', Buffer.from(body, 'utf8'), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('hex');
}

// ---------- quotes ----------
export interface QuoteSpec {
  readonly pckLeaf: Issued;
  readonly pckChainPem: string;
  readonly attestationKey?: KeyPair;
  /** Carry these 64 bytes as the attestation key instead (the QE report data still binds them). */
  readonly rawAttestationKey?: Uint8Array;
  readonly qeIsvSvn?: number;
  readonly mrEnclave?: Uint8Array;
  readonly reportData?: Uint8Array;
  /** ISV report ATTRIBUTES.flags (default INIT | MODE64BIT; add 0x02 for a debug enclave). */
  readonly attributeFlags?: bigint;
}

function rawPoint(k: KeyObject): Uint8Array {
  const jwk = k.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

export function buildQuote(s: QuoteSpec): Uint8Array {
  const att = s.attestationKey ?? newKey();
  const header = Buffer.alloc(48);
  header.writeUInt16LE(3, 0);
  header.writeUInt16LE(2, 2);
  header.writeUInt16LE(s.qeIsvSvn ?? 9, 8);
  header.writeUInt16LE(14, 10);
  Buffer.from('939a7233f79c4ca9940a0db3957f0607', 'hex').copy(header, 12);
  const isv = Buffer.alloc(384);
  isv.writeBigUInt64LE(s.attributeFlags ?? 5n, 48); // INIT | MODE64BIT
  isv.writeBigUInt64LE(7n, 56);
  Buffer.from(s.mrEnclave ?? new Uint8Array(32).fill(0x5a)).copy(isv, 64);
  isv.writeUInt16LE(1, 256);
  isv.writeUInt16LE(1, 258);
  Buffer.from(s.reportData ?? new Uint8Array(64)).copy(isv, 320);
  const attKey = s.rawAttestationKey ?? rawPoint(att.publicKey);
  const auth = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
  const qe = Buffer.alloc(384);
  qe.writeBigUInt64LE(0x15n, 48);
  qe.writeBigUInt64LE(0xe7n, 56);
  Buffer.from(QE_MRSIGNER, 'hex').copy(qe, 128);
  qe.writeUInt16LE(1, 256);
  qe.writeUInt16LE(s.qeIsvSvn ?? 9, 258);
  createHash('sha256').update(attKey).update(auth).digest().copy(qe, 320);
  const signed = Buffer.concat([header, isv]);
  const isvSig = sign('sha256', signed, { key: att.privateKey, dsaEncoding: 'ieee-p1363' });
  const qeSig = sign('sha256', qe, { key: s.pckLeaf.key.privateKey, dsaEncoding: 'ieee-p1363' });
  const pem = Buffer.concat([Buffer.from(s.pckChainPem, 'latin1'), Buffer.of(0)]);
  const u16 = (n: number): Buffer => {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(n);
    return b;
  };
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const sigData = Buffer.concat([isvSig, attKey, qe, qeSig, u16(auth.length), auth, u16(5), u32(pem.length), pem]);
  return new Uint8Array(Buffer.concat([signed, u32(sigData.length), sigData]));
}

// ---------- the whole PKI ----------
export const T0 = Date.UTC(2030, 0, 15); // verification time used by the tests
const DAY = 86_400_000;

export const PCK_TCB: PckTcb = { components: [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 11, fmspc: '00906ED50000', pceId: '0000' };

export interface TestPkiOptions {
  readonly pckTcb?: PckTcb;
  readonly tcbInfoFmspc?: string;
  readonly levels?: readonly TcbLevelSpec[];
  readonly qeLevels?: { isvsvn: number; status: string; advisoryIDs?: string[] }[];
  readonly revokeLeaf?: boolean;
  readonly revokeCa?: boolean;
  readonly revokeTcbSigning?: boolean;
}

export interface TestPki {
  readonly root: Issued;
  readonly tcbSigning: Issued;
  readonly pckCa: Issued;
  readonly pckLeaf: Issued;
  readonly pckChainPem: string;
  readonly collateral: Collateral;
  readonly time: number;
  quote(spec?: Partial<QuoteSpec>): Uint8Array;
}

export function mintTypeAPki(o: TestPkiOptions = {}): TestPki {
  const nb = T0 - 365 * DAY;
  const na = T0 + 365 * DAY;
  const root = issue({ subject: 'Intel SGX Root CA', issuer: 'self', serial: 0x22650cd65a9d3489n, notBefore: nb, notAfter: na * 2, ca: true, pathLen: 1 });
  const tcbSigning = issue({ subject: 'Intel SGX TCB Signing', issuer: root, serial: 0x7e3882d5fb55294an, notBefore: nb, notAfter: na, ca: false });
  const pckCa = issue({ subject: 'Intel SGX PCK Processor CA', issuer: root, serial: 0x00d0e8aada75d7f92en, notBefore: nb, notAfter: na, ca: true, pathLen: 0 });
  const tcb = o.pckTcb ?? PCK_TCB;
  const pckLeaf = issue({
    subject: 'Intel SGX PCK Certificate',
    issuer: pckCa,
    serial: 0x4fb8af9acd563694338d1cbd6702a5d2ba281b69n,
    notBefore: nb,
    notAfter: na,
    ca: false,
    extraExtensions: [extension(SGX_OID, false, sgxExtensionValue(tcb))],
  });
  const pckChainPem = pckLeaf.pem + pckCa.pem + root.pem;
  const rootRevoked = [...(o.revokeCa ? [0x00d0e8aada75d7f92en] : []), ...(o.revokeTcbSigning ? [0x7e3882d5fb55294an] : [])];
  const leafRevoked = [0x1234n, 0xca5d548cf6836573n, ...(o.revokeLeaf ? [0x4fb8af9acd563694338d1cbd6702a5d2ba281b69n] : [])];
  const levels = o.levels ?? [
    { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, status: 'UpToDate' },
    { components: [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 11, status: 'OutOfDate', advisoryIDs: ['INTEL-SA-00615'] },
  ];
  const tcbInfoRaw = tcbInfoBody({ fmspc: o.tcbInfoFmspc ?? tcb.fmspc, pceId: tcb.pceId, issueDate: T0 - 10 * DAY, nextUpdate: T0 + 20 * DAY, levels });
  const qeIdentityRaw = qeIdentityBody({
    issueDate: T0 - 10 * DAY,
    nextUpdate: T0 + 20 * DAY,
    levels: o.qeLevels ?? [
      { isvsvn: 8, status: 'UpToDate' },
      { isvsvn: 6, status: 'OutOfDate', advisoryIDs: ['INTEL-SA-00615'] },
    ],
  });
  const collateral: Collateral = {
    pckCrl: crl(pckCa, T0 - 5 * DAY, T0 + 25 * DAY, leafRevoked),
    pckCrlIssuerChain: pckCa.pem + root.pem,
    rootCaCrl: crl(root, T0 - 100 * DAY, T0 + 265 * DAY, rootRevoked),
    tcbInfoIssuerChain: tcbSigning.pem + root.pem,
    tcbInfoRaw,
    tcbInfoSignature: signBody(tcbInfoRaw, tcbSigning.key),
    qeIdentityIssuerChain: tcbSigning.pem + root.pem,
    qeIdentityRaw,
    qeIdentitySignature: signBody(qeIdentityRaw, tcbSigning.key),
  };
  return {
    root,
    tcbSigning,
    pckCa,
    pckLeaf,
    pckChainPem,
    collateral,
    time: T0,
    quote: (spec = {}) => buildQuote({ pckLeaf, pckChainPem, ...spec }),
  };
}
