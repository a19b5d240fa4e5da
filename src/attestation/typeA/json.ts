/**
 * Strict readers for the Intel PCS JSON documents (TCB info, QE identity): every field has one
 * type, unknown keys are refused, hex fields have fixed lengths, dates are ISO-8601 UTC seconds.
 */
import { VerifierError } from '../../errors.js';
import type { TypeACode } from './errors.js';

export type Obj = Record<string, unknown>;

export class JsonReader {
  constructor(
    private readonly code: TypeACode,
    private readonly what: string,
  ) {}

  fail(msg: string): never {
    throw new VerifierError<TypeACode>(this.code, `typeA: ${this.what}: ${msg}`);
  }

  parse(raw: string): Obj {
    if (typeof raw !== 'string') this.fail('body is not a string');
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      this.fail(`not valid JSON (${(e as Error).message})`);
    }
    return this.obj(v, 'body');
  }

  obj(v: unknown, path: string): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(`${path} is not an object`);
    return v as Obj;
  }

  keys(o: Obj, path: string, required: readonly string[], optional: readonly string[] = []): void {
    for (const k of required) if (!(k in o)) this.fail(`${path} lacks "${k}"`);
    for (const k of Object.keys(o)) {
      if (!required.includes(k) && !optional.includes(k)) this.fail(`${path} has unexpected field "${k}"`);
    }
  }

  arr(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(`${path} is not an array`);
    return v;
  }

  str(v: unknown, path: string): string {
    if (typeof v !== 'string') this.fail(`${path} is not a string`);
    return v;
  }

  uint(v: unknown, path: string, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) this.fail(`${path} is not an integer in 0..${max}`);
    return v;
  }

  /** Hex string of exactly `bytes` bytes (either case); returns the bytes. */
  hex(v: unknown, path: string, bytes: number): Uint8Array {
    const s = this.str(v, path);
    if (s.length !== bytes * 2 || !/^[0-9a-fA-F]*$/.test(s)) this.fail(`${path} "${s}" is not ${bytes} bytes of hex`);
    return new Uint8Array(Buffer.from(s, 'hex'));
  }

  /** "YYYY-MM-DDTHH:MM:SSZ" (optional fraction) → epoch ms. */
  date(v: unknown, path: string): number {
    const s = this.str(v, path);
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?Z$/.exec(s);
    if (!m) this.fail(`${path} "${s}" is not an ISO-8601 UTC date`);
    const ms = Date.parse(s);
    const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
    const back = new Date(ms);
    if (
      Number.isNaN(ms) ||
      back.getUTCFullYear() !== y ||
      back.getUTCMonth() !== mo - 1 ||
      back.getUTCDate() !== d ||
      back.getUTCHours() !== h ||
      back.getUTCMinutes() !== mi ||
      back.getUTCSeconds() !== se
    ) {
      this.fail(`${path} "${s}" is not a valid date`);
    }
    return ms;
  }

  oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[]): T {
    const s = this.str(v, path);
    if (!(allowed as readonly string[]).includes(s)) this.fail(`${path} "${s}" is not one of ${allowed.join(', ')}`);
    return s as T;
  }

  advisories(v: unknown, path: string): string[] {
    if (v === undefined) return [];
    return this.arr(v, path).map((a, i) => {
      const s = this.str(a, `${path}[${i}]`);
      if (!/^INTEL-SA-\d{4,}$/.test(s)) this.fail(`${path}[${i}] "${s}" is not an INTEL-SA-NNNNN advisory id`);
      return s;
    });
  }
}

export function iso(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}
