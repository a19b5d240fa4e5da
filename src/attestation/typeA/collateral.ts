/**
 * The typeA collateral model (what a PCCS serves for one quote) and the two ways it arrives:
 * PCS/PCCS wire bodies (`{"tcbInfo":{…},"signature":"…"}`), whose signed part must be cut out as
 * the exact substring, and the Phala dcap-qvl `QuoteCollateralV3` JSON used by the test vectors.
 */
import { typeAError } from './errors.js';

export interface Collateral {
  /** PCK CRL, DER (issued by the PCK Processor or Platform CA). */
  readonly pckCrl: Uint8Array;
  /** PEM: [PCK CA, root]. */
  readonly pckCrlIssuerChain: string;
  /** Intel SGX Root CA CRL, DER. */
  readonly rootCaCrl: Uint8Array;
  /** PEM: [TCB Signing, root]. */
  readonly tcbInfoIssuerChain: string;
  /** The exact text of the `tcbInfo` JSON value as served (the signed bytes). */
  readonly tcbInfoRaw: string;
  /** Hex of the raw r‖s P-256 signature over `tcbInfoRaw`. */
  readonly tcbInfoSignature: string;
  /** PEM: [TCB Signing, root]. */
  readonly qeIdentityIssuerChain: string;
  /** The exact text of the `enclaveIdentity` JSON value as served. */
  readonly qeIdentityRaw: string;
  readonly qeIdentitySignature: string;
}

function malformed(msg: string): never {
  typeAError('TYPEA_COLLATERAL_MALFORMED', msg);
}

/** Index just past the JSON string starting at `i` (which is a '"'). */
function skipString(s: string, i: number): number {
  for (let p = i + 1; p < s.length; p++) {
    const c = s.charCodeAt(p);
    if (c === 0x5c) p++;
    else if (c === 0x22) return p + 1;
  }
  return malformed('unterminated JSON string');
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  return i;
}

/** Index just past the JSON value starting at `i` (the text is already known to be valid JSON). */
function skipValue(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return skipString(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let p = i; p < s.length; ) {
      const ch = s[p];
      if (ch === '"') {
        p = skipString(s, p);
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return p + 1;
      }
      p++;
    }
    return malformed('unterminated JSON container');
  }
  let p = i;
  while (p < s.length && !/[\s,}\]]/.test(s[p]!)) p++;
  return p;
}

/**
 * Cuts the signed body out of a PCS/PCCS response: `rawBody` must be a JSON object with exactly
 * the members `key` (an object) and `signature` (hex string). Returns the exact source text of the
 * `key` value, without re-serialising, and the signature hex.
 */
export function splitSignedBody(rawBody: string, key: 'tcbInfo' | 'enclaveIdentity' | 'tcbEvaluationDataNumbers'): { raw: string; signatureHex: string } {
  if (typeof rawBody !== 'string') malformed(`${key} response body is not a string`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch (e) {
    malformed(`${key} response body is not valid JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) malformed(`${key} response body is not a JSON object`);
  const s = rawBody;
  let i = skipWs(s, 0);
  if (s[i] !== '{') malformed(`${key} response body is not a JSON object`);
  i++;
  let raw: string | undefined;
  let signatureHex: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    i = skipWs(s, i);
    if (s[i] === '}') break;
    const kEnd = skipString(s, i);
    const name = JSON.parse(s.slice(i, kEnd)) as string;
    if (seen.has(name)) malformed(`${key} response body repeats member "${name}"`);
    seen.add(name);
    i = skipWs(s, kEnd);
    i++; // ':'
    i = skipWs(s, i);
    const vEnd = skipValue(s, i);
    const text = s.slice(i, vEnd);
    if (name === key) {
      if (s[i] !== '{') malformed(`${key} member is not a JSON object`);
      raw = text;
    } else if (name === 'signature') {
      const v: unknown = JSON.parse(text);
      if (typeof v !== 'string') malformed(`${key} response "signature" is not a string`);
      signatureHex = v;
    } else {
      malformed(`${key} response body has unexpected member "${name}"`);
    }
    i = skipWs(s, vEnd);
    if (s[i] === ',') i++;
  }
  if (raw === undefined) malformed(`${key} response body lacks "${key}"`);
  if (signatureHex === undefined) malformed(`${key} response body lacks "signature"`);
  return { raw, signatureHex };
}

function hexBytes(v: unknown, name: string): Uint8Array {
  if (typeof v !== 'string' || v.length === 0 || v.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(v)) {
    malformed(`collateral "${name}" is not a non-empty hex string`);
  }
  return new Uint8Array(Buffer.from(v, 'hex'));
}

function text(v: unknown, name: string): string {
  if (typeof v !== 'string' || v.length === 0) malformed(`collateral "${name}" is not a non-empty string`);
  return v;
}

const DCAP_QVL_KEYS = [
  'pck_crl_issuer_chain',
  'root_ca_crl',
  'pck_crl',
  'tcb_info_issuer_chain',
  'tcb_info',
  'tcb_info_signature',
  'qe_identity_issuer_chain',
  'qe_identity',
  'qe_identity_signature',
] as const;

/**
 * Reads the dcap-qvl `QuoteCollateralV3` JSON shape (CRLs as hex of DER, `tcb_info` /
 * `qe_identity` as the exact signed text, signatures as hex) — the format of the vectors in
 * shared/vectors/sgx/derived-collateral and dcap-qvl/.
 */
export function collateralFromDcapQvlJson(json: string): Collateral {
  let o: unknown;
  try {
    o = JSON.parse(json);
  } catch (e) {
    malformed(`collateral is not valid JSON (${(e as Error).message})`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) malformed('collateral is not a JSON object');
  const c = o as Record<string, unknown>;
  for (const k of DCAP_QVL_KEYS) if (!(k in c)) malformed(`collateral lacks "${k}"`);
  for (const k of Object.keys(c)) {
    if (!(DCAP_QVL_KEYS as readonly string[]).includes(k)) malformed(`collateral has unexpected field "${k}"`);
  }
  return {
    pckCrl: hexBytes(c.pck_crl, 'pck_crl'),
    pckCrlIssuerChain: text(c.pck_crl_issuer_chain, 'pck_crl_issuer_chain'),
    rootCaCrl: hexBytes(c.root_ca_crl, 'root_ca_crl'),
    tcbInfoIssuerChain: text(c.tcb_info_issuer_chain, 'tcb_info_issuer_chain'),
    tcbInfoRaw: text(c.tcb_info, 'tcb_info'),
    tcbInfoSignature: text(c.tcb_info_signature, 'tcb_info_signature'),
    qeIdentityIssuerChain: text(c.qe_identity_issuer_chain, 'qe_identity_issuer_chain'),
    qeIdentityRaw: text(c.qe_identity, 'qe_identity'),
    qeIdentitySignature: text(c.qe_identity_signature, 'qe_identity_signature'),
  };
}
