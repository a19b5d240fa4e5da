/**
 * The ordered check trace: every check the verifier runs, in the order it runs them, with its
 * outcome. A check is "passed" when the verifier moved past it, "failed" when it threw there, and
 * "skipped" when it was not run (after a failure, or not applicable, e.g. a nonce check without a
 * nonce). The plan of a verification is the common steps plus the detected kind's own list.
 */
import type { ErrorCode } from '../errorCodes.js';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckDef {
  readonly id: string;
  readonly title: string;
}

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** The error code of a failed check. */
  code?: ErrorCode;
}

/** Before the report kind is known. */
export const STRUCT_CHECKS: readonly CheckDef[] = [
  { id: 'struct.parse', title: 'Parse the userData and report ledger structs' },
  { id: 'userData.decode', title: 'Decode userData (encoding era, every request)' },
  { id: 'report.kind', title: 'Detect the report kind' },
];

/** Records the outcome of each check of a plan as the verifier reaches it. */
export class CheckTrace {
  private plan: CheckDef[];
  private readonly status = new Map<string, { status: CheckStatus; code?: ErrorCode }>();
  private current: string | undefined;

  constructor(plan: readonly CheckDef[] = STRUCT_CHECKS) {
    this.plan = [...plan];
  }

  /** Appends the checks of the detected kind. */
  extend(checks: readonly CheckDef[]): void {
    this.plan.push(...checks);
  }

  /** The verifier starts check `id`; the one running before it passed. */
  begin(id: string): void {
    if (!this.plan.some((c) => c.id === id)) throw new Error(`check trace: unknown check ${id}`);
    this.pass();
    this.current = id;
  }

  /** The running check passed. */
  pass(): void {
    if (this.current !== undefined) this.status.set(this.current, { status: 'passed' });
    this.current = undefined;
  }

  /** The running check failed with `code`. */
  fail(code: ErrorCode): void {
    if (this.current !== undefined) this.status.set(this.current, { status: 'failed', code });
    this.current = undefined;
  }

  /** Records a check run and judged outside begin/pass (e.g. userData decoding, which does not stop the report checks). */
  record(id: string, code?: ErrorCode): void {
    this.begin(id);
    if (code === undefined) this.pass();
    else this.fail(code);
  }

  /** The plan in order, each check with its outcome; checks never reached are skipped. */
  result(): CheckResult[] {
    return this.plan.map((c) => {
      const s = this.status.get(c.id);
      if (!s) return { id: c.id, title: c.title, status: 'skipped' as const };
      return s.code === undefined ? { id: c.id, title: c.title, status: s.status } : { id: c.id, title: c.title, status: s.status, code: s.code };
    });
  }
}

/** The last check of every kind: Poseidon8 of userData equals the report's 16 bound bytes. */
export const BINDING_CHECK: CheckDef = { id: 'binding', title: 'userData hash (Poseidon8) equals the bytes the report binds' };
