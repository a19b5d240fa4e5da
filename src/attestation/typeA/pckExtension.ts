/**
 * The Intel SGX PCK certificate extension (OID 1.2.840.113741.1.13.1, spec §5), read with the
 * strict DER reader. Every known element must appear exactly once; unknown elements are refused.
 *
 *   SGXExtensions ::= SEQUENCE OF SEQUENCE { sgxExtensionId OID, sgxExtensionValue ANY }
 *   .1 PPID OCTET STRING(16)
 *   .2 TCB SEQUENCE { .2.1 … .2.16 INTEGER, .2.17 PCESVN INTEGER, .2.18 CPUSVN OCTET STRING(16) }
 *   .3 PCE-ID OCTET STRING(2)       .4 FMSPC OCTET STRING(6)
 *   .5 SGX type ENUMERATED          .6 PlatformInstanceID OCTET STRING(16)   (Platform CA only)
 *   .7 Configuration SEQUENCE { .7.1 dynamicPlatform, .7.2 cachedKeys, .7.3 SMTEnabled BOOLEAN } (Platform CA only; each optional)
 */
import { VerifierError } from '../../errors.js';
import type { Certificate } from '../x509/certificate.js';
import {
  TAG,
  children,
  expectTag,
  parseDer,
  readBoolean,
  readOctetString,
  readOid,
  readSmallUInt,
  type Tlv,
} from '../x509/der.js';
import { typeAError } from './errors.js';

export const SGX_EXTENSION_OID = '1.2.840.113741.1.13.1';
const O = SGX_EXTENSION_OID;

export const SGX_TYPES = ['Standard', 'Scalable', 'ScalableWithIntegrity'] as const;
export type SgxType = (typeof SGX_TYPES)[number];

export interface PckExtension {
  readonly ppid: Uint8Array; // 16
  /** The 16 SGX TCB component SVNs (0–255), component 1 first. */
  readonly tcbComponents: readonly number[];
  readonly pceSvn: number;
  readonly cpuSvn: Uint8Array; // 16
  readonly pceId: Uint8Array; // 2
  readonly fmspc: Uint8Array; // 6
  readonly sgxType: SgxType;
  /** Platform CA certificates only. */
  readonly platformInstanceId?: Uint8Array;
  readonly configuration?: { readonly dynamicPlatform?: boolean; readonly cachedKeys?: boolean; readonly smtEnabled?: boolean };
}

function bad(msg: string): never {
  typeAError('TYPEA_PCK_EXTENSION_MALFORMED', `PCK SGX extension: ${msg}`);
}

/** Reads SEQUENCE OF SEQUENCE { OID, value } into a map, refusing duplicates. */
function pairs(t: Tlv, what: string): Map<string, Tlv> {
  const out = new Map<string, Tlv>();
  for (const item of children(expectTag(t, TAG.SEQUENCE, what))) {
    const kv = children(expectTag(item, TAG.SEQUENCE, `${what} element`));
    if (kv.length !== 2) bad(`${what} element has ${kv.length} parts, expected 2 (OID, value)`);
    const oid = readOid(kv[0]!);
    if (out.has(oid)) bad(`${oid} appears more than once`);
    out.set(oid, kv[1]!);
  }
  return out;
}

function octets(t: Tlv | undefined, oid: string, len: number, name: string): Uint8Array {
  if (!t) bad(`${name} (${oid}) is missing`);
  const v = readOctetString(t);
  if (v.length !== len) bad(`${name} is ${v.length} bytes, expected ${len}`);
  return v;
}

function int(t: Tlv | undefined, oid: string, max: number, name: string): number {
  if (!t) bad(`${name} (${oid}) is missing`);
  const n = readSmallUInt(t);
  if (n > max) bad(`${name} = ${n}, above ${max}`);
  return n;
}

function onlyKnown(m: Map<string, Tlv>, known: readonly string[], what: string): void {
  for (const k of m.keys()) if (!known.includes(k)) bad(`unknown element ${k} in ${what}`);
}

/** Parses the extension value (the DER inside extnValue). */
export function parsePckExtensionValue(der: Uint8Array): PckExtension {
  try {
    const top = pairs(parseDer(der), 'SGXExtensions');
    onlyKnown(top, [1, 2, 3, 4, 5, 6, 7].map((i) => `${O}.${i}`), 'SGXExtensions');

    const tcb = top.get(`${O}.2`);
    if (!tcb) bad(`TCB (${O}.2) is missing`);
    const tcbMap = pairs(tcb, 'TCB');
    const compOids = Array.from({ length: 16 }, (_, i) => `${O}.2.${i + 1}`);
    onlyKnown(tcbMap, [...compOids, `${O}.2.17`, `${O}.2.18`], 'TCB');
    const tcbComponents = compOids.map((oid, i) => int(tcbMap.get(oid), oid, 255, `TCB component ${i + 1}`));
    const pceSvn = int(tcbMap.get(`${O}.2.17`), `${O}.2.17`, 0xffff, 'PCESVN');
    const cpuSvn = octets(tcbMap.get(`${O}.2.18`), `${O}.2.18`, 16, 'CPUSVN');

    const typeT = top.get(`${O}.5`);
    if (!typeT) bad(`SGX type (${O}.5) is missing`);
    const typeN = readSmallUInt(typeT, TAG.ENUMERATED);
    const sgxType = SGX_TYPES[typeN] ?? bad(`SGX type ${typeN} is not 0, 1 or 2`);

    const ext: {
      -readonly [K in keyof PckExtension]: PckExtension[K];
    } = {
      ppid: octets(top.get(`${O}.1`), `${O}.1`, 16, 'PPID'),
      tcbComponents,
      pceSvn,
      cpuSvn,
      pceId: octets(top.get(`${O}.3`), `${O}.3`, 2, 'PCE-ID'),
      fmspc: octets(top.get(`${O}.4`), `${O}.4`, 6, 'FMSPC'),
      sgxType,
    };
    const pi = top.get(`${O}.6`);
    if (pi) ext.platformInstanceId = octets(pi, `${O}.6`, 16, 'PlatformInstanceID');
    const cfgT = top.get(`${O}.7`);
    if (cfgT) {
      const cfg = pairs(cfgT, 'Configuration');
      onlyKnown(cfg, [`${O}.7.1`, `${O}.7.2`, `${O}.7.3`], 'Configuration');
      const b = (k: string): boolean | undefined => {
        const t = cfg.get(k);
        return t ? readBoolean(t) : undefined;
      };
      const c: { dynamicPlatform?: boolean; cachedKeys?: boolean; smtEnabled?: boolean } = {};
      const d = b(`${O}.7.1`);
      const k = b(`${O}.7.2`);
      const s = b(`${O}.7.3`);
      if (d !== undefined) c.dynamicPlatform = d;
      if (k !== undefined) c.cachedKeys = k;
      if (s !== undefined) c.smtEnabled = s;
      ext.configuration = c;
    }
    return ext;
  } catch (e) {
    if (e instanceof VerifierError && e.code === 'TYPEA_PCK_EXTENSION_MALFORMED') throw e;
    bad(e instanceof Error ? e.message : String(e));
  }
}

/** Finds the SGX extension in a PCK certificate (exactly once) and parses it. */
export function pckExtension(cert: Certificate): PckExtension {
  const found = cert.extensions.filter((e) => e.oid === SGX_EXTENSION_OID);
  if (found.length === 0) typeAError('TYPEA_PCK_EXTENSION_MISSING', `PCK certificate "${cert.subjectText}" has no SGX extension ${SGX_EXTENSION_OID}`);
  if (found.length > 1) bad(`present ${found.length} times in "${cert.subjectText}"`);
  return parsePckExtensionValue(found[0]!.value);
}
