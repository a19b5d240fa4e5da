/**
 * The verification core: (userData bytes, report bytes, policy, trust anchors, time) → outcome.
 * Order of checks: decode userData (its encoding era, then every request; src/encoding/eras) → detect the report kind → kind-specific parse and
 * verification → measurements against targets → binding hash. The first failure is the one
 * reported; decoded views are returned whenever they could be produced.
 */
import { decodeUserDataBytes, parseUserData } from '../encoding/eras/index.js';
import { VerifierError } from '../errors.js';
import type { VerifyCode } from './errors.js';
import { parseChunkedStruct, REPORT_CHUNKS } from '../ledger/struct.js';
import type { KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { ChainCache } from '../attestation/x509/chainCache.js';
import { detectReportType } from './detect.js';
import { toFailure } from './failure.js';
import { verifyTypeAReportAgainstPolicy, type TypeACollateralSource } from './typeA.js';
import { verifyTypeBReportAgainstPolicy } from './typeB.js';
import { decodeNonce } from './nonce.js';
import type { DecodeOutcome, FailureInfo, Policy, VerifyOutcome } from './types.js';

export interface VerifyDeps {
  roots: { typeA: Certificate; typeB: Certificate };
  chainCache?: ChainCache;
  collateral?: TypeACollateralSource;
  /** Imported typeA attestation keys. */
  keyCache?: LRUCache<string, KeyObject>;
  /** Fixed typeA verification time (epoch ms); the clock when absent. typeB uses the document time. */
  typeATime?: number;
}

/** Detects the encoding era and decodes every request (src/encoding/eras). */
export function decodeUserData(userData: Uint8Array): DecodeOutcome {
  try {
    const d = decodeUserDataBytes(userData);
    return { decodedData: d.decodedData, decodedRequests: d.decodedRequests };
  } catch (e) {
    return { error: toFailure(e) };
  }
}

export function decodeUserDataText(text: string): DecodeOutcome {
  let bytes: Uint8Array;
  try {
    bytes = parseUserData(text);
  } catch (e) {
    return { error: toFailure(e) };
  }
  return decodeUserData(bytes);
}

export async function verifyReportBytes(
  userData: Uint8Array,
  report: Uint8Array,
  policy: Policy,
  deps: VerifyDeps,
  opts: { nonce?: Uint8Array } = {},
): Promise<VerifyOutcome> {
  const out: VerifyOutcome = { reportValid: false };
  const timings: { hashSeconds?: number } = {};
  let first: FailureInfo | undefined;
  const decoded = decodeUserData(userData);
  if (decoded.decodedData) {
    out.decodedData = decoded.decodedData;
    out.decodedRequests = decoded.decodedRequests;
  } else first = decoded.error;

  const onView = (v: Record<string, unknown>) => {
    out.decodedReport = v;
  };
  try {
    const kind = detectReportType(report);
    out.reportType = kind;
    if (kind === 'typeB') {
      verifyTypeBReportAgainstPolicy(report, userData, policy, { root: deps.roots.typeB, ...(deps.chainCache ? { chainCache: deps.chainCache } : {}) }, onView, opts.nonce, timings);
    } else {
      if (opts.nonce !== undefined) {
        throw new VerifierError<VerifyCode>('REQUEST_BAD_NONCE', 'request: a nonce applies to typeB reports only; this report is typeA');
      }
      await verifyTypeAReportAgainstPolicy(
        report,
        userData,
        policy,
        {
          root: deps.roots.typeA,
          ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
          ...(deps.keyCache ? { keyCache: deps.keyCache } : {}),
          ...(deps.collateral ? { collateral: deps.collateral } : {}),
          ...(deps.typeATime !== undefined ? { time: deps.typeATime } : {}),
        },
        onView,
        timings,
      );
    }
  } catch (e) {
    first ??= toFailure(e);
  }
  if (first) out.error = first;
  else out.reportValid = true;
  if (timings.hashSeconds !== undefined) out.timings = timings;
  return out;
}

export async function verifyReportText(
  userDataText: string,
  reportText: string,
  policy: Policy,
  deps: VerifyDeps,
  opts: { nonce?: string } = {},
): Promise<VerifyOutcome> {
  let userData: Uint8Array;
  let report: Uint8Array;
  let nonce: Uint8Array | undefined;
  try {
    userData = parseUserData(userDataText);
    report = parseChunkedStruct(reportText, REPORT_CHUNKS, 'report');
    if (opts.nonce !== undefined) nonce = decodeNonce(opts.nonce);
  } catch (e) {
    return { reportValid: false, error: toFailure(e) };
  }
  return verifyReportBytes(userData, report, policy, deps, nonce === undefined ? {} : { nonce });
}
