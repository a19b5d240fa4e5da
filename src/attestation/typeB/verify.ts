/**
 * typeB (AWS Nitro Enclaves) attestation verification, as one ordered list of checks:
 *   1. COSE_Sign1 structure (untagged, 4 elements, no trailing bytes)      parseTypeB
 *   2. protected header exactly {1: -35} (ES384), signature 96 bytes        parseTypeB
 *   3. attestation document fields, types and limits                        parseTypeB
 *   4. debug document (PCR0 all zeros) rejected unless allowDebug           verifyTypeB
 *   5. chain leaf → cabundle (reversed) → pinned root at the document time  verifyTypeB
 *   6. leaf key EC P-384, leaf signed with ecdsa-with-SHA384                verifyTypeB
 *   7. ES384 signature (r ‖ s) over the Sig_structure of the received bytes verifyTypeB
 */
import { verify as cryptoVerify } from 'node:crypto';
import { VerifierError } from '../../errors.js';
import type { Certificate } from '../x509/certificate.js';
import { OID } from '../x509/certificate.js';
import { verifyChainDer, type ChainPolicy } from '../x509/chain.js';
import type { ChainCache } from '../x509/chainCache.js';
import { parseCoseSign1, sigStructure, ES384_SIGNATURE_LENGTH } from './cose.js';
import { isDebugDocument, parseNitroDocument, type NitroDocument } from './document.js';
import type { TypeBCode } from './errors.js';

export interface ParsedTypeB {
  readonly protectedBytes: Uint8Array;
  readonly payloadBytes: Uint8Array;
  readonly signature: Uint8Array;
  readonly document: NitroDocument;
}

export interface TypeBVerifyOptions {
  /** The pinned AWS Nitro Enclaves Root G1 certificate. */
  readonly root: Certificate;
  readonly allowDebug: boolean;
  readonly chainCache?: ChainCache;
  /** Verification time in ms; defaults to the document timestamp. Override only for audits and tests. */
  readonly time?: number;
  /** Called as each check starts, with its id in TYPEB_CHECKS (the check trace). */
  readonly onCheck?: (id: TypeBCheckId) => void;
}

/** The checks of verifyTypeB, in order (ids and titles of the check trace). */
export const TYPEB_CHECKS = [
  { id: 'typeB.debug', title: 'Reject a debug enclave (PCR0 all zeros)' },
  { id: 'typeB.chain', title: 'Certificate chain to the pinned AWS Nitro root at the document time' },
  { id: 'typeB.signature', title: 'ES384 signature of the COSE_Sign1 by the leaf key' },
] as const;
export type TypeBCheckId = (typeof TYPEB_CHECKS)[number]['id'];

function fail(code: TypeBCode, msg: string): never {
  throw new VerifierError<TypeBCode>(code, `typeB: ${msg}`);
}

/** Checks 1–3: decodes the COSE_Sign1 and the attestation document. Throws on any structural error. */
export function parseTypeB(report: Uint8Array): ParsedTypeB {
  const cose = parseCoseSign1(report);
  const document = parseNitroDocument(cose.payloadBytes);
  return { ...cose, document };
}

/** Checks 4–7 on a parsed report. Throws a VerifierError on the first failed check. */
export function verifyTypeB(parsed: ParsedTypeB, opts: TypeBVerifyOptions): void {
  const doc = parsed.document;
  // 4. Debug mode.
  opts.onCheck?.('typeB.debug');
  if (!opts.allowDebug && isDebugDocument(doc)) fail('TYPEB_DEBUG_MODE', 'enclave runs in debug mode (PCR0 is all zeros)');

  // 5–6. Certificate chain at the document time: leaf, then the cabundle from the leaf's issuer up to the root.
  opts.onCheck?.('typeB.chain');
  const policy: ChainPolicy = {
    time: opts.time ?? doc.timestamp,
    root: opts.root,
    leafKeyCurve: 'P-384',
    leafSignatureAlgorithms: [OID.ecdsaWithSha384],
    label: 'typeB',
  };
  const ders = [doc.certificate, ...[...doc.cabundle].reverse()];
  const chain = opts.chainCache ? opts.chainCache.verify(ders, policy) : verifyChainDer(ders, policy);

  // 7. ES384 signature by the leaf key over the Sig_structure.
  opts.onCheck?.('typeB.signature');
  if (parsed.signature.length !== ES384_SIGNATURE_LENGTH) {
    fail('TYPEB_SIGNATURE_INVALID', `signature is ${parsed.signature.length} bytes, expected ${ES384_SIGNATURE_LENGTH}`);
  }
  const toBeSigned = sigStructure(parsed.protectedBytes, parsed.payloadBytes);
  let ok = false;
  try {
    ok = cryptoVerify('sha384', toBeSigned, { key: chain[0]!.publicKey, dsaEncoding: 'ieee-p1363' }, parsed.signature);
  } catch {
    ok = false;
  }
  if (!ok) fail('TYPEB_SIGNATURE_INVALID', 'COSE_Sign1 ES384 signature does not verify with the leaf certificate key');
}

/** parseTypeB followed by verifyTypeB. */
export function verifyTypeBReport(report: Uint8Array, opts: TypeBVerifyOptions): ParsedTypeB {
  const parsed = parseTypeB(report);
  verifyTypeB(parsed, opts);
  return parsed;
}
