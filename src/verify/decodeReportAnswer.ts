/**
 * POST /decodeReport's answer bytes for an outcome, made wherever the outcome is (a pool worker,
 * or the in-process service): decodeReportBody(out) serialised by fast-json-stringify compiled
 * from the route's own response schema (decodeReportSchema.ts) as Fastify compiles it (no external
 * schemas, no serializer options), so the bytes are those the route would send for the outcome;
 * test/e2e/decodeReport-answer-bytes.test.ts compares them with the route's serialiser. The
 * serialiser drops what the schema does not name (e.g. `timings`, `requestKeys`) and formats some
 * values its own way, which is why JSON.stringify would not do.
 */
import fastJsonStringify from 'fast-json-stringify';
import { decodeReportBody } from './decodeReportBody.js';
import { decodeReportResponse } from './decodeReportSchema.js';
import type { ReportAnswer, VerificationFacts, VerifyOutcome } from './types.js';

let stringify: ((doc: unknown) => string) | undefined;
const utf8 = new TextEncoder();

/** The facts of an outcome its caller counts (instrumentService: kind, verdict, code, hash time). */
export function factsOf(out: VerifyOutcome): VerificationFacts {
  return {
    ...(out.reportType !== undefined ? { reportType: out.reportType } : {}),
    reportValid: out.reportValid,
    ...(out.error ? { error: { code: out.error.code } } : {}),
    ...(out.timings?.hashSeconds !== undefined ? { timings: { hashSeconds: out.timings.hashSeconds } } : {}),
  };
}

/**
 * The answer of an outcome. The body's bytes have an ArrayBuffer of their own (TextEncoder: never
 * a pooled Buffer's), so a worker can transfer it.
 */
export function decodeReportAnswer(out: VerifyOutcome): ReportAnswer {
  // The schema object itself, as Fastify hands it over (its `as const` type is readonly only).
  stringify ??= fastJsonStringify(decodeReportResponse as unknown as fastJsonStringify.Schema);
  return { body: utf8.encode(stringify(decodeReportBody(out))), facts: factsOf(out) };
}
