/**
 * typeA verification as one ordered list of checks (spec typeA-sgx-dcap.md §3–§12):
 *
 *   verifyCollateral(collateral, { root, time })  — everything that does not depend on the quote;
 *     the result is cacheable until `validUntil` (and is re-checked against the time on each use).
 *   verifyQuoteSignatures(quote, { root, time })  — the per-quote checks that need no collateral
 *     (PCK chain to the pinned root, PCK extension, QE report, ISV report); the typeA kind runs
 *     them before it asks for collateral, so a forged quote is refused without asking a PCCS.
 *   verifyQuoteWithCollateral(signedQuote, verifiedCollateral)  — revocation, FMSPC/PCE-ID, QE
 *     identity and TCB levels. verifyQuote runs both. Warm cost with a ChainCache and a key
 *     cache: 2 P-256 verifies (QE report, ISV report) + one SHA-256.
 *
 * TCB level status "Revoked" (platform or QE) is RETURNED as the verdict's tcbStatus (EGo code 2)
 * so that callers can show why a report is refused; the oracle policy rejects it. Revoked
 * CERTIFICATES (a serial on a CRL) are hard failures and throw.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Certificate } from '../x509/certificate.js';
import { parseChainDer, verifyChain, type ChainPolicy } from '../x509/chain.js';
import type { ChainCache } from '../x509/chainCache.js';
import { checkCrlCovers, checkCrlTime, isRevoked, parseCrl, verifyCrl, verifyCrlCovering, type Crl } from '../x509/crl.js';
import type { Collateral } from './collateral.js';
import { typeAError } from './errors.js';
import { iso } from './json.js';
import { pckExtension, type PckExtension, type SgxType } from './pckExtension.js';
import { checkQeIdentityTime, checkQeReport, parseQeIdentity, type QeIdentity } from './qeIdentity.js';
import type { Quote } from './quote.js';
import { checkTcbInfoTime, matchTcbLevel, parseTcbInfo, type TcbInfo } from './tcbInfo.js';
import { combineTcbStatus, egoTcbStatus, type QeTcbStatus, type TcbStatus } from './tcbStatus.js';
import { hex } from '../../bytes.js';
import { checkEvaluation, revocation } from './history.js';
import type { NewerEvaluation } from './today.js';
import { collateralPemChain, commonName, isSigningLeaf, p1363Verify, tcbSigningChainShape, verifyCollateralChain } from './signingChain.js';

export interface VerifyOptions {
  /** The pinned Intel SGX Root CA. */
  readonly root: Certificate;
  /** Verification time, epoch milliseconds. Every validity bound is inclusive. */
  readonly time: number;
  /**
   * Judge as history: the report as it stood at `time` (a ledger update at its block's time), under
   * the TCB evaluation `evaluation` that was in force then (evaluationInForce.ts). The collateral is
   * then authenticated by its signatures, not by its copies' dates: each signing chain is validated
   * at the time its document was signed (a TCB info's or QE identity's issueDate, a CRL's
   * thisUpdate); the TCB info and QE identity must be of `evaluation`; each CRL must have been
   * current at `time` or issued later, and a certificate is revoked only by an entry dated at or
   * before `time` (a later one is reported as `pckRevokedSince` / `pckCaRevokedSince`). The
   * report's own PCK chain is still validated at `time`.
   */
  readonly asOf?: { readonly evaluation: number };
}

export interface QuoteVerifyOptions extends VerifyOptions {
  /** Caches validated PCK chains (keyed by their exact bytes); warm hits only re-check validity. */
  readonly chainCache?: ChainCache;
  /** Caches imported attestation keys by their 64-byte hex (x‖y). */
  readonly keyCache?: LRUCache<string, KeyObject>;
  /** Called as each check starts, with its id in TYPEA_QUOTE_CHECKS or TYPEA_COLLATERAL_CHECKS (the check trace). */
  readonly onCheck?: (id: TypeAQuoteCheckId) => void;
}

/** The collateral-free checks of a quote (verifyQuoteSignatures), in order (ids and titles of the check trace). */
export const TYPEA_QUOTE_CHECKS = [
  { id: 'typeA.pckChain', title: 'PCK certificate chain to the pinned Intel SGX root (signatures, validity, CA flags)' },
  { id: 'typeA.pckExtension', title: 'PCK SGX extension (FMSPC, PCE-ID, TCB components)' },
  { id: 'typeA.qeSignature', title: 'QE report signature by the PCK key' },
  { id: 'typeA.qeReportData', title: 'QE report data binds the attestation key' },
  { id: 'typeA.isvSignature', title: 'Enclave report signature by the attestation key' },
] as const;

/** The checks of a signed quote against verified collateral (verifyQuoteWithCollateral), in order. */
export const TYPEA_COLLATERAL_CHECKS = [
  { id: 'typeA.collateralTime', title: 'Collateral valid at the verification time' },
  { id: 'typeA.revocation', title: 'PCK CA and PCK certificate not revoked (CRLs)' },
  { id: 'typeA.tcbInfoMatch', title: 'PCK FMSPC and PCE-ID match the TCB info' },
  { id: 'typeA.qeIdentity', title: 'QE identity and QE TCB level' },
  { id: 'typeA.tcbLevel', title: 'Platform TCB level' },
  { id: 'typeA.tcbStatus', title: 'Combined TCB status (platform and QE)' },
] as const;
export type TypeAQuoteCheckId = (typeof TYPEA_QUOTE_CHECKS)[number]['id'] | (typeof TYPEA_COLLATERAL_CHECKS)[number]['id'];

/** Collateral whose signatures, chains, CRLs and dates were verified. Immutable; cacheable. */
export interface VerifiedCollateral {
  readonly rootFingerprint: string;
  readonly tcbInfo: TcbInfo;
  readonly qeIdentity: QeIdentity;
  readonly rootCaCrl: Crl;
  readonly pckCrl: Crl;
  /** The PCK CA that signed `pckCrl` (validated up to the root). */
  readonly pckCrlIssuer: Certificate;
  readonly tcbInfoSigningChain: readonly Certificate[];
  readonly qeIdentitySigningChain: readonly Certificate[];
  readonly pckCrlIssuerChain: readonly Certificate[];
  /** Intersection of every validity window above, epoch ms (judged as history: the one time judged). */
  readonly validFrom: number;
  readonly validUntil: number;
  /** Verified to judge a report as it stood at `time` under TCB evaluation `evaluation` (VerifyOptions.asOf). */
  readonly asOf?: { readonly time: number; readonly evaluation: number };
  /** Judged as history: what the collateral is (the evaluation, the policy that chose it, the archive keys), for the verdict's record. */
  readonly judgedWith?: Readonly<Record<string, unknown>>;
  /** Judged as history: the archived evaluations newer than the one in force at T, verified, that rate the report today (today.ts). */
  readonly newer?: readonly NewerEvaluation[];
}

/** Supplies verified collateral (TCB info, QE identity, CRLs) for a quote at a time. */
export interface TypeACollateralSource {
  forReport(quote: Quote, time: number): Promise<VerifiedCollateral>;
}

export interface TypeAVerdict {
  readonly tcbStatus: TcbStatus;
  /** EGo numbering: UpToDate=0, OutOfDate=1, Revoked=2, ConfigurationNeeded=3, OutOfDateConfigurationNeeded=4, SWHardeningNeeded=5, ConfigurationAndSWHardeningNeeded=6. */
  readonly tcbStatusCode: number;
  readonly platformStatus: TcbStatus;
  readonly qeStatus: QeTcbStatus;
  /** Advisories of the platform TCB level, then those of the QE TCB level not already listed. */
  readonly advisoryIds: string[];
  /** Upper-case hex, as in the PCK certificate. */
  readonly fmspc: string;
  readonly pceId: string;
  /** tcbDate of the matched platform TCB level. */
  readonly tcbDate?: string;
  /** Index of the matched level in the signed TCB info. */
  readonly tcbLevelIndex: number;
  readonly qeTcbLevelIndex: number;
  readonly tcbEvaluationDataNumber: number;
  readonly sgxType: SgxType;
  /** PCK leaf certificate serial (lowercase hex). */
  readonly pckCertSerial: string;
  /** Intersection of every validity window used (collateral and PCK chain), epoch ms. */
  readonly validFrom: number;
  readonly validUntil: number;
  /** Judged as history: the PCK certificate, or its CA, was revoked after the time judged, on this date (epoch ms). */
  readonly pckRevokedSince?: number;
  readonly pckCaRevokedSince?: number;
}

const LABEL = 'typeA';
const CN_ROOT = 'Intel SGX Root CA';
const CN_PCK = 'Intel SGX PCK Certificate';
const CN_PROCESSOR_CA = 'Intel SGX PCK Processor CA';
const CN_PLATFORM_CA = 'Intel SGX PCK Platform CA';
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');



function window(certs: readonly Certificate[]): [number, number] {
  let from = -Infinity;
  let until = Infinity;
  for (const c of certs) {
    from = Math.max(from, c.notBefore);
    until = Math.min(until, c.notAfter);
  }
  return [from, until];
}


function signatureBytes(sigHex: string, what: 'TCB info' | 'QE identity'): Uint8Array {
  const code = what === 'TCB info' ? 'TYPEA_TCB_INFO_BAD_SIGNATURE' : 'TYPEA_QE_IDENTITY_BAD_SIGNATURE';
  if (typeof sigHex !== 'string' || !/^[0-9a-fA-F]{128}$/.test(sigHex)) {
    typeAError(code, `${what} signature is not 64 bytes of hex (raw r‖s)`);
  }
  return new Uint8Array(Buffer.from(sigHex, 'hex'));
}



/** Validates a [TCB Signing, root] chain at T; the signing cert must not be on the root CRL. */
function verifyTcbSigningChain(chain: readonly Certificate[], what: string, rootCrl: Crl, opts: VerifyOptions): void {
  verifyCollateralChain(chain, { time: opts.time, root: opts.root, label: `${LABEL} ${what} issuer chain`, leafKeyCurve: 'P-256' }, 'TYPEA_TCB_SIGNING_CHAIN_INVALID');
  const signer = chain[0]!;
  if (isRevoked(rootCrl, signer.serialHex)) {
    typeAError('TYPEA_TCB_SIGNING_CERT_REVOKED', `${what} signing certificate serial ${signer.serialHex} is on the Root CA CRL`);
  }
}

/**
 * Verifies the collateral at `opts.time`, in order:
 *  1. input shape: every field, JSON body, signature encoding, CRL and certificate is parsed
 *     strictly before any signature is checked;
 *  2. Root CA CRL: signed by the pinned root, current;
 *  3. TCB info issuer chain [TCB Signing, root]: chain, dates, TCB Signing not revoked;
 *  4. TCB info: parsed (v2/v3), signature over the exact bytes, issueDate ≤ T ≤ nextUpdate;
 *  5. QE identity issuer chain (same rules); 6. QE identity: parsed, signature, dates;
 *  7. PCK CRL issuer chain [PCK CA, root]: chain, PCK CA not on the Root CA CRL;
 *  8. PCK CRL: parsed, issued and signed by that PCK CA, current.
 */
export function verifyCollateral(c: Collateral, opts: VerifyOptions): VerifiedCollateral {
  const { root, time } = opts;
  // 1. Shape.
  if (typeof c !== 'object' || c === null) typeAError('TYPEA_COLLATERAL_MALFORMED', 'collateral is not an object');
  for (const k of ['pckCrl', 'rootCaCrl'] as const) {
    if (!(c[k] instanceof Uint8Array)) typeAError('TYPEA_COLLATERAL_MALFORMED', `collateral ${k} is not DER bytes`);
  }
  for (const k of ['pckCrlIssuerChain', 'tcbInfoIssuerChain', 'tcbInfoRaw', 'tcbInfoSignature', 'qeIdentityIssuerChain', 'qeIdentityRaw', 'qeIdentitySignature'] as const) {
    if (typeof c[k] !== 'string') typeAError('TYPEA_COLLATERAL_MALFORMED', `collateral ${k} is not a string`);
  }
  if (!Number.isFinite(time)) typeAError('TYPEA_COLLATERAL_MALFORMED', `invalid verification time ${time}`);
  if (commonName(root) !== CN_ROOT) typeAError('TYPEA_COLLATERAL_MALFORMED', `trusted root is "${root.subjectText}", expected CN=${CN_ROOT}`);
  const tcbInfo = parseTcbInfo(c.tcbInfoRaw);
  const qeIdentity = parseQeIdentity(c.qeIdentityRaw);
  const tcbSig = signatureBytes(c.tcbInfoSignature, 'TCB info');
  const qeSig = signatureBytes(c.qeIdentitySignature, 'QE identity');
  const rootCaCrl = parseCrl(c.rootCaCrl, `${LABEL} Root CA CRL`);
  const pckCrl = parseCrl(c.pckCrl, `${LABEL} PCK CRL`);
  const tcbInfoSigningChain = tcbSigningChainShape(c.tcbInfoIssuerChain, 'TCB info');
  const sameChain = c.qeIdentityIssuerChain === c.tcbInfoIssuerChain;
  const qeIdentitySigningChain = sameChain ? tcbInfoSigningChain : tcbSigningChainShape(c.qeIdentityIssuerChain, 'QE identity');
  const pckCrlIssuerChain = collateralPemChain(c.pckCrlIssuerChain, 'PCK CRL issuer chain', 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID');
  if (pckCrlIssuerChain.length !== 2) {
    typeAError('TYPEA_PCK_CHAIN_INVALID', `PCK CRL issuer chain has ${pckCrlIssuerChain.length} certificate(s), expected 2 (PCK CA, root)`);
  }
  const pckCrlIssuer = pckCrlIssuerChain[0]!;
  const caName = commonName(pckCrlIssuer);
  if (caName !== CN_PROCESSOR_CA && caName !== CN_PLATFORM_CA) {
    typeAError('TYPEA_PCK_CHAIN_INVALID', `PCK CRL issuer is "${pckCrlIssuer.subjectText}", expected CN=${CN_PROCESSOR_CA} or CN=${CN_PLATFORM_CA}`);
  }

  const asOf = opts.asOf;
  // 2. Root CA CRL.
  if (asOf) verifyCrlCovering(rootCaCrl, root, time, `${LABEL} Root CA CRL`);
  else verifyCrl(rootCaCrl, root, time, `${LABEL} Root CA CRL`);

  // 3–4. TCB info (as history: its chain at the time it was signed, and of the evaluation then in force).
  verifyTcbSigningChain(tcbInfoSigningChain, 'TCB info', rootCaCrl, { root, time: asOf ? tcbInfo.issueDate : time });
  if (!p1363Verify(tcbInfoSigningChain[0]!.publicKey, Buffer.from(c.tcbInfoRaw, 'utf8'), tcbSig)) {
    typeAError('TYPEA_TCB_INFO_BAD_SIGNATURE', `TCB info signature does not verify with the key of "${tcbInfoSigningChain[0]!.subjectText}" over the exact tcbInfo bytes`);
  }
  if (asOf) checkEvaluation('TCB info', tcbInfo.tcbEvaluationDataNumber, tcbInfo, time, asOf.evaluation);
  else checkTcbInfoTime(tcbInfo, time);

  // 5–6. QE identity.
  if (!sameChain || asOf) verifyTcbSigningChain(qeIdentitySigningChain, 'QE identity', rootCaCrl, { root, time: asOf ? qeIdentity.issueDate : time });
  if (!p1363Verify(qeIdentitySigningChain[0]!.publicKey, Buffer.from(c.qeIdentityRaw, 'utf8'), qeSig)) {
    typeAError('TYPEA_QE_IDENTITY_BAD_SIGNATURE', `QE identity signature does not verify with the key of "${qeIdentitySigningChain[0]!.subjectText}" over the exact enclaveIdentity bytes`);
  }
  if (asOf) checkEvaluation('QE identity', qeIdentity.tcbEvaluationDataNumber, tcbInfo, time, asOf.evaluation);
  else checkQeIdentityTime(qeIdentity, time);

  // 7. PCK CRL issuer chain (as history: at the time the CRL was signed).
  verifyCollateralChain(pckCrlIssuerChain, { time: asOf ? pckCrl.thisUpdate : time, root, label: `${LABEL} PCK CRL issuer chain` }, 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID');
  if (revocation(rootCaCrl, pckCrlIssuer.serialHex, asOf ? time : undefined) === 'revoked') {
    typeAError('TYPEA_PCK_CA_REVOKED', `PCK CA "${pckCrlIssuer.subjectText}" serial ${pckCrlIssuer.serialHex} is on the Root CA CRL`);
  }

  // 8. PCK CRL.
  if (asOf) verifyCrlCovering(pckCrl, pckCrlIssuer, time, `${LABEL} PCK CRL`);
  else verifyCrl(pckCrl, pckCrlIssuer, time, `${LABEL} PCK CRL`);

  const windows = [
    window(tcbInfoSigningChain),
    window(qeIdentitySigningChain),
    window(pckCrlIssuerChain),
    [rootCaCrl.thisUpdate, rootCaCrl.nextUpdate],
    [pckCrl.thisUpdate, pckCrl.nextUpdate],
    [tcbInfo.issueDate, tcbInfo.nextUpdate],
    [qeIdentity.issueDate, qeIdentity.nextUpdate],
  ] as const;
  return {
    rootFingerprint: root.fingerprint256,
    tcbInfo,
    qeIdentity,
    rootCaCrl,
    pckCrl,
    pckCrlIssuer,
    tcbInfoSigningChain,
    qeIdentitySigningChain,
    pckCrlIssuerChain,
    ...(asOf
      ? { validFrom: time, validUntil: time, asOf: { time, evaluation: asOf.evaluation } }
      : { validFrom: Math.max(...windows.map((w) => w[0])), validUntil: Math.min(...windows.map((w) => w[1])) }),
  };
}

/**
 * Collateral verified as of one past time (VerifyOptions.asOf), judged as of another `time`. Its
 * signatures and chains do not depend on the time judged (each chain was validated when its
 * document was signed); what does is re-checked, in verifyCollateral's order: the Root CA CRL can
 * tell `time` (step 2), the PCK CA was not revoked by then (7), the PCK CRL can tell `time` (8).
 */
export function verifiedAsOfAt(vc: VerifiedCollateral, time: number): VerifiedCollateral {
  if (!vc.asOf) typeAError('TYPEA_COLLATERAL_MALFORMED', 'typeA: collateral verified to judge now cannot judge a past time');
  if (vc.asOf.time === time) return vc;
  checkCrlCovers(vc.rootCaCrl, time, `${LABEL} Root CA CRL`);
  if (revocation(vc.rootCaCrl, vc.pckCrlIssuer.serialHex, time) === 'revoked') {
    typeAError('TYPEA_PCK_CA_REVOKED', `PCK CA "${vc.pckCrlIssuer.subjectText}" serial ${vc.pckCrlIssuer.serialHex} is on the Root CA CRL`);
  }
  checkCrlCovers(vc.pckCrl, time, `${LABEL} PCK CRL`);
  return { ...vc, validFrom: time, validUntil: time, asOf: { time, evaluation: vc.asOf.evaluation } };
}

/** Re-checks every validity window of cached collateral at `time`, naming the first that fails. */
export function checkCollateralTime(vc: VerifiedCollateral, opts: VerifyOptions): void {
  if (vc.asOf) {
    if (opts.time !== vc.asOf.time) typeAError('TYPEA_COLLATERAL_MALFORMED', `collateral verified to judge the report as of ${iso(vc.asOf.time)} cannot judge it at ${iso(opts.time)}`);
    return;
  }
  if (opts.time >= vc.validFrom && opts.time <= vc.validUntil) return;
  checkCrlTime(vc.rootCaCrl, opts.time, `${LABEL} Root CA CRL`);
  const chains: [readonly Certificate[], string, 'TYPEA_TCB_SIGNING_CHAIN_INVALID' | 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID'][] = [
    [vc.tcbInfoSigningChain, 'TCB info issuer chain', 'TYPEA_TCB_SIGNING_CHAIN_INVALID'],
    [vc.qeIdentitySigningChain, 'QE identity issuer chain', 'TYPEA_TCB_SIGNING_CHAIN_INVALID'],
    [vc.pckCrlIssuerChain, 'PCK CRL issuer chain', 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID'],
  ];
  for (const [chain, what, code] of chains) {
    verifyCollateralChain(chain, { time: opts.time, root: opts.root, label: `${LABEL} ${what}` }, code);
  }
  checkTcbInfoTime(vc.tcbInfo, opts.time);
  checkQeIdentityTime(vc.qeIdentity, opts.time);
  checkCrlTime(vc.pckCrl, opts.time, `${LABEL} PCK CRL`);
}

const pckExtensions = new WeakMap<Certificate, PckExtension>();

function cachedPckExtension(leaf: Certificate): PckExtension {
  let ext = pckExtensions.get(leaf);
  if (!ext) {
    ext = pckExtension(leaf);
    pckExtensions.set(leaf, ext);
  }
  return ext;
}

function attestationKey(raw: Uint8Array, cache: LRUCache<string, KeyObject> | undefined): KeyObject {
  const id = hex(raw);
  const hit = cache?.get(id);
  if (hit) return hit;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([P256_SPKI_PREFIX, Buffer.from([0x04]), raw]), format: 'der', type: 'spki' });
  } catch (e) {
    typeAError('TYPEA_BAD_ATTESTATION_KEY', `attestation key ${id} is not a valid P-256 point`, { cause: e });
  }
  cache?.set(id, key);
  return key;
}

/** A quote whose collateral-free checks all passed (made only by verifyQuoteSignatures). */
export interface SignedQuote {
  readonly [signed]: true;
  readonly quote: Quote;
  /** The root and time the checks ran with; the collateral checks use the same. */
  readonly root: Certificate;
  readonly time: number;
  /** [PCK leaf, PCK CA, root], validated up to the pinned root at `time`. */
  readonly chain: readonly [Certificate, Certificate, Certificate];
  readonly extension: PckExtension;
}
declare const signed: unique symbol;

/**
 * The checks of a quote that need no collateral, at `opts.time`, in order (TYPEA_QUOTE_CHECKS);
 * the quote header (version, attestation key type, TEE type, QE vendor) was checked by parseQuote:
 *  1. PCK chain [PCK leaf, PCK CA, root]: names, pinned root, signatures, validity, CA flags;
 *  2. PCK SGX extension parsed (FMSPC, PCE-ID, TCB components; Platform-CA-only fields);
 *  3. QE report signature with the PCK leaf key;
 *  4. QE report data = SHA-256(attestation key ‖ QE auth data) ‖ 32 zero bytes;
 *  5. attestation key is a P-256 point; ISV report signature over quote[0..432).
 * Revocation of the PCK chain needs the CRLs of the collateral: verifyQuoteWithCollateral.
 */
export function verifyQuoteSignatures(q: Quote, opts: QuoteVerifyOptions): SignedQuote {
  const { root, time } = opts;
  // 1. PCK chain.
  opts.onCheck?.('typeA.pckChain');
  if (!Number.isFinite(time)) typeAError('TYPEA_COLLATERAL_MALFORMED', `invalid verification time ${time}`);
  const policy: ChainPolicy = { time, root, label: `${LABEL} PCK chain`, leafKeyCurve: 'P-256' };
  const chain = opts.chainCache ? opts.chainCache.verify(q.pckCertDers, policy) : verifyPckChainUncached(q.pckCertDers, policy);
  const [leaf, ca] = chain as [Certificate, Certificate, Certificate];
  if (commonName(leaf) !== CN_PCK) typeAError('TYPEA_PCK_CHAIN_INVALID', `PCK leaf is "${leaf.subjectText}", expected CN=${CN_PCK}`);
  if (!isSigningLeaf(leaf)) typeAError('TYPEA_PCK_CHAIN_INVALID', 'PCK leaf is a CA or its keyUsage lacks digitalSignature');
  const pckCaName = commonName(ca);
  if (pckCaName !== CN_PROCESSOR_CA && pckCaName !== CN_PLATFORM_CA) {
    typeAError('TYPEA_PCK_CHAIN_INVALID', `PCK CA is "${ca.subjectText}", expected CN=${CN_PROCESSOR_CA} or CN=${CN_PLATFORM_CA}`);
  }

  // 2. PCK SGX extension.
  opts.onCheck?.('typeA.pckExtension');
  const extension = cachedPckExtension(leaf);
  if (pckCaName !== CN_PLATFORM_CA && (extension.platformInstanceId || extension.configuration)) {
    typeAError('TYPEA_PCK_EXTENSION_MALFORMED', 'PCK SGX extension carries PlatformInstanceID/Configuration, which only Platform CA certificates have');
  }

  // 3. QE report signature.
  opts.onCheck?.('typeA.qeSignature');
  if (!p1363Verify(leaf.publicKey, q.qeReport.raw, q.qeReportSignature)) {
    typeAError('TYPEA_QE_REPORT_BAD_SIGNATURE', `QE report signature does not verify with the PCK key (PCK serial ${leaf.serialHex})`);
  }

  // 4. QE report data binds the attestation key.
  opts.onCheck?.('typeA.qeReportData');
  const expected = createHash('sha256').update(q.attestationKey).update(q.qeAuthData).digest();
  const rd = q.qeReport.reportData;
  if (!expected.equals(rd.subarray(0, 32)) || rd.subarray(32).some((b) => b !== 0)) {
    typeAError(
      'TYPEA_QE_REPORT_DATA_MISMATCH',
      `QE report data ${hex(rd)} is not SHA-256(attestation key ‖ QE auth data) ${expected.toString('hex')} followed by 32 zero bytes`,
    );
  }

  // 5. ISV report signature.
  opts.onCheck?.('typeA.isvSignature');
  const key = attestationKey(q.attestationKey, opts.keyCache);
  if (!p1363Verify(key, q.signedBytes, q.isvSignature)) {
    typeAError('TYPEA_ISV_REPORT_BAD_SIGNATURE', 'ISV enclave report signature does not verify with the attestation key over quote bytes [0, 432)');
  }

  return { quote: q, root, time, chain: chain as SignedQuote['chain'], extension } as SignedQuote;
}

/**
 * The checks of a signed quote that need verified collateral, at the quote's verification time,
 * in order (TYPEA_COLLATERAL_CHECKS):
 *  1. the collateral is current at T and was verified against the quote's root;
 *  2. revocation: PCK CA not on the Root CA CRL; the PCK CRL was issued by this chain's CA; PCK
 *     leaf not on the PCK CRL;
 *  3. FMSPC and PCE-ID of the PCK extension equal the TCB info's;
 *  4. QE identity: MISCSELECT, ATTRIBUTES, MRSIGNER, ISVPRODID; QE TCB level;
 *  5. platform TCB level from the PCK components and PCESVN;
 *  6. QE + platform status combination.
 */
export function verifyQuoteWithCollateral(sq: SignedQuote, vc: VerifiedCollateral, opts: Pick<QuoteVerifyOptions, 'onCheck'> = {}): TypeAVerdict {
  const { root, time, chain, extension: ext } = sq;
  const [leaf, ca] = chain;
  // 1. Collateral at T.
  opts.onCheck?.('typeA.collateralTime');
  if (vc.rootFingerprint !== root.fingerprint256) {
    typeAError('TYPEA_COLLATERAL_MALFORMED', `collateral was verified against root ${vc.rootFingerprint}, not the given root ${root.fingerprint256}`);
  }
  checkCollateralTime(vc, { root, time });

  // 2. Revocation (as history: by the entries dated up to the time judged).
  opts.onCheck?.('typeA.revocation');
  const at = vc.asOf?.time;
  const caRevoked = revocation(vc.rootCaCrl, ca.serialHex, at);
  if (caRevoked === 'revoked') {
    typeAError('TYPEA_PCK_CA_REVOKED', `PCK CA "${ca.subjectText}" serial ${ca.serialHex} is on the Root CA CRL`);
  }
  if (!Buffer.from(vc.pckCrl.issuer).equals(ca.subject)) {
    typeAError('TYPEA_PCK_CRL_ISSUER_MISMATCH', `PCK CRL was issued by "${vc.pckCrlIssuer.subjectText}", but the quote's PCK CA is "${ca.subjectText}"`);
  }
  if (!Buffer.from(vc.pckCrlIssuer.der).equals(ca.der)) {
    // Same name, different certificate (e.g. a re-issued CA): the CRL must verify with this CA too.
    try {
      if (at !== undefined) verifyCrlCovering(vc.pckCrl, ca, time, `${LABEL} PCK CRL`);
      else verifyCrl(vc.pckCrl, ca, time, `${LABEL} PCK CRL`);
    } catch (e) {
      typeAError('TYPEA_PCK_CRL_ISSUER_MISMATCH', `PCK CRL does not verify with the quote's PCK CA "${ca.subjectText}": ${(e as Error).message}`, { cause: e });
    }
  }
  const leafRevoked = revocation(vc.pckCrl, leaf.serialHex, at);
  if (leafRevoked === 'revoked') {
    typeAError('TYPEA_PCK_CERT_REVOKED', `PCK certificate serial ${leaf.serialHex} is on the PCK CRL (thisUpdate ${iso(vc.pckCrl.thisUpdate)})`);
  }

  // 3. FMSPC and PCE-ID against the TCB info.
  opts.onCheck?.('typeA.tcbInfoMatch');
  const fmspc = hex(ext.fmspc).toUpperCase();
  const pceId = hex(ext.pceId).toUpperCase();
  if (!Buffer.from(ext.fmspc).equals(vc.tcbInfo.fmspc)) {
    typeAError('TYPEA_FMSPC_MISMATCH', `PCK FMSPC ${fmspc} differs from the TCB info FMSPC ${hex(vc.tcbInfo.fmspc).toUpperCase()}`);
  }
  if (!Buffer.from(ext.pceId).equals(vc.tcbInfo.pceId)) {
    typeAError('TYPEA_PCE_ID_MISMATCH', `PCK PCE-ID ${pceId} differs from the TCB info PCE-ID ${hex(vc.tcbInfo.pceId).toUpperCase()}`);
  }

  // 4. QE identity and QE TCB level.
  opts.onCheck?.('typeA.qeIdentity');
  const qeLevel = checkQeReport(vc.qeIdentity, sq.quote.qeReport);

  // 5. Platform TCB level.
  opts.onCheck?.('typeA.tcbLevel');
  const level = matchTcbLevel(vc.tcbInfo, ext.tcbComponents, ext.pceSvn);

  // 6. Combination.
  opts.onCheck?.('typeA.tcbStatus');
  const tcbStatus = combineTcbStatus(level.tcbStatus, qeLevel.tcbStatus);
  const advisoryIds = [...level.advisoryIds];
  for (const a of qeLevel.advisoryIds) if (!advisoryIds.includes(a)) advisoryIds.push(a);
  const [chainFrom, chainUntil] = window(chain);
  return {
    tcbStatus,
    tcbStatusCode: egoTcbStatus(tcbStatus),
    platformStatus: level.tcbStatus,
    qeStatus: qeLevel.tcbStatus,
    advisoryIds,
    fmspc,
    pceId,
    tcbDate: level.tcbDate,
    tcbLevelIndex: level.index,
    qeTcbLevelIndex: qeLevel.index,
    tcbEvaluationDataNumber: vc.tcbInfo.tcbEvaluationDataNumber,
    sgxType: ext.sgxType,
    pckCertSerial: leaf.serialHex,
    validFrom: Math.max(vc.validFrom, chainFrom),
    validUntil: Math.min(vc.validUntil, chainUntil),
    ...(typeof leafRevoked === 'number' ? { pckRevokedSince: leafRevoked } : {}),
    ...(typeof caRevoked === 'number' ? { pckCaRevokedSince: caRevoked } : {}),
  };
}

/** Every check of a quote against collateral already at hand: the collateral-free checks, then the collateral ones. */
export function verifyQuote(q: Quote, vc: VerifiedCollateral, opts: QuoteVerifyOptions): TypeAVerdict {
  return verifyQuoteWithCollateral(verifyQuoteSignatures(q, opts), vc, opts);
}

function verifyPckChainUncached(ders: readonly Uint8Array[], policy: ChainPolicy): Certificate[] {
  const certs = parseChainDer(ders, policy.root);
  verifyChain(certs, policy);
  return certs;
}
