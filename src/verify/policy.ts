/**
 * The oracle policy checks that follow the cryptographic verification: measurements against the
 * configured targets and the binding of the report to the userData (Poseidon8 hash).
 */
import { timingSafeEqual } from 'node:crypto';
import { VerifierError } from '../errors.js';
import { hashReportData } from '../hash/index.js';
import type { VerifyCode } from './errors.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function fail(code: VerifyCode, message: string): never {
  throw new VerifierError<VerifyCode>(code, message);
}

/** The report's 16 bound bytes must equal the Poseidon8 hash of the userData exactly as provided. */
export function checkUserDataBinding(userData: Uint8Array, bound: Uint8Array, where: string, timings?: { hashSeconds?: number }): void {
  const t0 = performance.now();
  const h = hashReportData(userData);
  if (timings) timings.hashSeconds = (performance.now() - t0) / 1000;
  if (!equalBytes(h, bound)) {
    fail('USERDATA_HASH_MISMATCH', `userData hash does not match report: ${where} holds ${hex(bound)}, the Poseidon8 hash of userData is ${hex(h)}`);
  }
}

export function checkPcrs(pcrs: ReadonlyMap<number, Uint8Array>, targets: readonly Uint8Array[]): void {
  for (let i = 0; i < 3; i++) {
    const got = pcrs.get(i);
    const want = targets[i]!;
    if (!got) fail('TYPEB_PCR_MISSING', `typeB: document has no PCR${i}`);
    if (!equalBytes(got, want)) fail('TYPEB_PCR_MISMATCH', `PCR${i} does not match target: document has ${hex(got)}, target is ${hex(want)}`);
  }
}

export function checkUniqueId(mrEnclave: Uint8Array, target: Uint8Array): void {
  if (!equalBytes(mrEnclave, target)) {
    fail('TYPEA_UNIQUE_ID_MISMATCH', `unique ID does not match target: report has ${hex(mrEnclave)}, target is ${hex(target)}`);
  }
}
