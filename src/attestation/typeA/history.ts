/**
 * Judging a typeA report as it stood at a past time T (verify.ts, VerifyOptions.asOf): the two
 * rules that differ from judging it now. Copies of another TCB evaluation than the one in force at
 * T are not used; a certificate counts as revoked at T only by a CRL entry dated at or before T.
 */
import { hex } from '../../bytes.js';
import { revokedSince, type Crl } from '../x509/crl.js';
import { typeAError } from './errors.js';
import { iso } from './json.js';
import type { TcbInfo } from './tcbInfo.js';

/** Judged as history: a TCB info or QE identity of another evaluation than the one in force at T is not used. */
export function checkEvaluation(what: string, has: number, tcbInfo: TcbInfo, time: number, wanted: number): void {
  if (has !== wanted) {
    typeAError(
      'TYPEA_TCB_EVALUATION_UNAVAILABLE',
      `the ${what} at hand is of TCB evaluation ${has}, but evaluation ${wanted} was in force at ${iso(time)} (FMSPC ${hex(tcbInfo.fmspc).toUpperCase()}): supply Intel's signed ${what} of evaluation ${wanted}`,
    );
  }
}

/**
 * Whether `serial` counts as revoked: listed on `crl` (now), or, judged as history at `asOf`, by an
 * entry dated at or before it; a later entry gives its date (revoked since then, not at `asOf`).
 */
export function revocation(crl: Crl, serial: string, asOf: number | undefined): 'revoked' | number | undefined {
  const since = revokedSince(crl, serial);
  if (since === undefined) return undefined;
  return asOf === undefined || since <= asOf ? 'revoked' : since;
}
