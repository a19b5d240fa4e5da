/**
 * POST /decodeReport's answer bytes made where the verification runs (the pool's worker
 * serialises decodeReportBody(outcome) with the route's response schema and transfers the bytes,
 * src/verify/decodeReportAnswer.ts; in process they are made on the main thread) against the
 * route's own serialiser: the same route over a service without decodeReportAnswer answers as the
 * route always did, decodeReportBody(outcome) serialised by Fastify's compiled response schema
 * (the outcome structured-cloned from the worker). Every answer must be byte-identical, with the
 * same status and headers: real vectors (the README Nitro and SGX pairs, with and without nonce,
 * every userData era's real responses), the minted mix the load benches send (typeA against the
 * minted PCCS, typeB), each kind of invalid answer, unverifiable ones (no collateral, no PCCS),
 * struct and nonce failures answered on the HTTP thread, and reports coalesced into one task.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { resolveConfig } from '../../src/config/load.js';
import { resolveTargets } from '../../src/bootstrap.js';
import { composeVerifier, type Composed } from '../../src/compose.js';
import type { VerifierService } from '../../src/verify/types.js';
import { silentLog } from '../support/server.js';
import { VECTORS } from '../support/paths.js';
import { bundleFromCollateral, recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { examples, docPcrs, oracleDoc, targets, tweak } from '../support/nitro-pair.js';
import { realResponses } from '../support/era-vectors.js';
import { makeUserData, openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { tamperQuote } from '../support/typea-tamper.js';
import { mintMix, mixConfig } from '../../bench/mix.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';

interface Case {
  name: string;
  body: { userData: string; report: string; nonce?: string };
}

interface Answer {
  status: number;
  headers: [string, unknown][];
  bytes: Buffer;
}

/** The four routes of one configuration: the reference and the three that must answer as it does. */
interface Peers {
  /** The pool's outcome, serialised by the route (the route without decodeReportAnswer). */
  reference: FastifyInstance;
  /** The pool's worker makes the bytes. */
  pooled: FastifyInstance;
  /** In process: the bytes made on the main thread. */
  inProcess: FastifyInstance;
  /** In process, the outcome serialised by the route. */
  inProcessOutcome: FastifyInstance;
  pool: Composed;
  /** The verifiers behind reference, pooled, inProcess and inProcessOutcome, in that order. */
  composed: [Composed, Composed, Composed, Composed];
  close(): Promise<void>;
}

/** The service without decodeReportAnswer: the route serialises decodeReport's outcome itself. */
function outcomesOnly(svc: VerifierService): VerifierService {
  const { decodeReportAnswer: _answer, ...rest } = svc;
  return rest;
}

/**
 * A separate composed verifier per route (each with its own collateral caches and PCCS circuit), so
 * that the same requests in the same order meet the same state in each.
 */
async function peers(raw: Record<string, unknown>): Promise<Peers> {
  const config = resolveConfig({ port: 0, host: '127.0.0.1', liveCheck: { skip: true }, ...raw }, process.cwd());
  const t = (await resolveTargets(config, silentLog)).values;
  const composed = [composeVerifier(config, { targets: t, workers: 1 }), composeVerifier(config, { targets: t, workers: 1 }), composeVerifier(config, { targets: t, workers: 0 }), composeVerifier(config, { targets: t, workers: 0 })];
  const [refPool, pool, inProc, inProcRef] = composed as [Composed, Composed, Composed, Composed];
  expect(pool.service.decodeReportAnswer).toBeTypeOf('function');
  expect(inProc.service.decodeReportAnswer).toBeTypeOf('function');
  const app = (service: VerifierService) => buildApp({ service, info: {} as never });
  const apps = {
    reference: await app(outcomesOnly(refPool.service)),
    pooled: await app(pool.service),
    inProcess: await app(inProc.service),
    inProcessOutcome: await app(outcomesOnly(inProcRef.service)),
  };
  return {
    ...apps,
    pool,
    composed: [refPool, pool, inProc, inProcRef],
    async close() {
      for (const a of Object.values(apps)) await a.close();
      for (const c of composed) await c.close();
    },
  };
}

async function answer(app: FastifyInstance, body: Case['body']): Promise<Answer> {
  const r = await app.inject({ method: 'POST', url: '/decodeReport', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: r.statusCode, headers: Object.entries(r.headers).filter(([k]) => k !== 'date'), bytes: r.rawPayload };
}

/** Where two answers part, with some context of each. */
function firstDifference(a: Buffer, b: Buffer): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (x: Buffer) => x.subarray(Math.max(0, i - 60), i + 60).toString('utf8');
  return `byte ${i}: …${around(a)}… against …${around(b)}…`;
}

/** Each case through the reference, then through each other route in turn (same order everywhere); every answer byte-identical. */
async function expectSameAnswers(p: Peers, cases: readonly Case[]): Promise<Answer[]> {
  const refs: Answer[] = [];
  for (const c of cases) refs.push(await answer(p.reference, c.body));
  for (const which of ['pooled', 'inProcess', 'inProcessOutcome'] as const) {
    for (const [i, c] of cases.entries()) {
      const got = await answer(p[which], c.body);
      const ref = refs[i]!;
      expect(got.status, `${which}: ${c.name}`).toBe(ref.status);
      expect(got.headers, `${which}: ${c.name}`).toEqual(ref.headers);
      expect(got.bytes.equals(ref.bytes), `${which}: ${c.name}: ${firstDifference(got.bytes, ref.bytes)}`).toBe(true);
    }
  }
  return refs;
}

/** The verification metrics a verifier counted (kind, outcome, code; hash times), sample lines in order. */
async function verificationCounts(c: Composed): Promise<string[]> {
  const text = await c.metrics.registry.metrics();
  return text.split('\n').filter((l) => /^verifier_(verifications_total|verification_failures_total|verification_duration_seconds_count|hash_duration_seconds_count)\b/.test(l));
}

/** The pool answering bytes counts each verification as the pool answering outcomes does (and so in process). */
async function expectSameCounts(p: Peers): Promise<void> {
  const [reference, pooled, inProcess, inProcessOutcome] = await Promise.all(p.composed.map(verificationCounts));
  expect(reference!.some((l) => l.startsWith('verifier_verifications_total{'))).toBe(true);
  expect(pooled).toEqual(reference);
  expect(inProcess).toEqual(inProcessOutcome);
}

/** What the answers were, so that a spread of verdicts is known to have been compared. */
const verdicts = (answers: Answer[]) => answers.map((a) => (a.status === 200 ? (JSON.parse(a.bytes.toString('utf8')) as { outcome: string; errorCode?: string }) : { outcome: `http ${a.status}` }));

describe('real vectors: the README pairs (PCCS with the 2026-09-22 collateral) and every era', () => {
  let pccs: PccsServer;
  const sets: Peers[] = [];
  beforeAll(async () => {
    // The second-generation era vectors' platform (Platform CA) lacks its TCB info and its PCK CRL
    // in the recording: the processor CA's CRL stands in, so that the one piece missing, and so
    // each answer's message, does not depend on which of two concurrent fetches fails first.
    const bundle = recordedBundle2026(VECTORS);
    pccs = await startPccsServer({ ...bundle, pckCrl: { ...bundle.pckCrl, platform: bundle.pckCrl.processor! } });
  });
  afterAll(async () => {
    for (const s of sets) await s.close();
    await pccs?.close();
  });

  const nitro = examples.nitro.request as { userData: string; report: string };
  const sgx = examples.sgx.request as { userData: string; report: string };
  const eras = realResponses().map((r) => ({ name: `era vector: ${r.name}`, body: { userData: r.userData, report: r.response.oracleData.report as string } }));

  it('the default policy, the Nitro document\'s own PCRs: valid, invalid, unverifiable and refused answers are the same bytes', async () => {
    const p = await peers({ pccsUrl: pccs.url, verificationTime: '2026-09-23T00:00:00Z', uniqueIdTarget: SGX_MRENCLAVE, pcrValuesTarget: docPcrs });
    sets.push(p);
    const cases: Case[] = [
      { name: 'nitro valid', body: nitro },
      { name: 'nitro with its nonce', body: { ...nitro, nonce: oracleDoc.nonce } },
      { name: 'nitro with its nonce as base64', body: { ...nitro, nonce: Buffer.from(oracleDoc.nonce, 'hex').toString('base64') } },
      { name: 'nitro with another nonce', body: { ...nitro, nonce: '00'.repeat(32) } },
      { name: 'nitro with an unreadable nonce', body: { ...nitro, nonce: 'not a nonce!' } },
      { name: 'nitro, userData changed', body: { ...nitro, userData: tweak(nitro.userData, 0, 2) } },
      { name: 'nitro, report byte changed (c0.f5)', body: { ...nitro, report: tweak(nitro.report, 0, 5) } },
      { name: 'nitro, report byte changed (c3.f17)', body: { ...nitro, report: tweak(nitro.report, 3, 17) } },
      { name: 'nitro, report byte changed (c8.f20)', body: { ...nitro, report: tweak(nitro.report, 8, 20) } },
      { name: 'sgx: TCB status OutOfDate rejected', body: sgx },
      { name: 'sgx, userData changed', body: { ...sgx, userData: tweak(sgx.userData, 1, 3) } },
      { name: 'sgx report with nitro userData', body: { userData: nitro.userData, report: sgx.report } },
      { name: 'userData not a struct', body: { userData: 'not a struct', report: nitro.report } },
      { name: 'report not a struct', body: { userData: nitro.userData, report: '{ c0: 1u128 }' } },
      { name: 'a report of no known kind', body: { userData: nitro.userData, report: reportText(Uint8Array.from([9, 9, 9, 9])) } },
      ...eras,
    ];
    const got = verdicts(await expectSameAnswers(p, cases));
    await expectSameCounts(p);
    const outcomes = new Set(got.map((g) => g.outcome));
    expect([...outcomes].sort()).toEqual(['invalid', 'unverifiable', 'valid']);
    // The answers compared include the era vectors' collateral errors and the HTTP thread's own refusals.
    expect(got.map((g) => g.errorCode)).toEqual(expect.arrayContaining(['TYPEB_NONCE_MISMATCH', 'USERDATA_HASH_MISMATCH', 'TYPEA_TCB_STATUS_REJECTED', 'STRUCT_SYNTAX', 'PCCS_NOT_FOUND']));
  });

  it('OutOfDate accepted, the shipped PCR targets: the SGX quote valid, the Nitro document a PCR mismatch', async () => {
    const p = await peers({ pccsUrl: pccs.url, verificationTime: '2026-09-23T00:00:00Z', uniqueIdTarget: SGX_MRENCLAVE, pcrValuesTarget: targets.pcrValuesTarget, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'] });
    sets.push(p);
    const got = verdicts(await expectSameAnswers(p, [
      { name: 'sgx valid', body: sgx },
      { name: 'nitro PCR mismatch', body: nitro },
      { name: 'nitro PCR mismatch, with its nonce', body: { ...nitro, nonce: oracleDoc.nonce } },
      ...eras,
    ]));
    expect(got.slice(0, 2).map((g) => g.errorCode ?? g.outcome)).toEqual(['valid', 'TYPEB_PCR_MISMATCH']);
  });
});

describe('the minted mix of the load benches (typeA against a minted PCCS, typeB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'answer-bytes-'));
  const mix = mintMix(4);
  let pccs: PccsServer;
  let p: Peers | undefined;
  let dead: Peers | undefined;
  beforeAll(async () => {
    pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
  });
  afterAll(async () => {
    await p?.close();
    await dead?.close();
    await pccs?.close();
  });

  const bodies = mix.updates.flatMap((u, i) => [
    { name: `update ${i} typeA`, body: { userData: u.userData.text, report: reportText(u.typeA) } },
    { name: `update ${i} typeB`, body: { userData: u.userData.text, report: reportText(u.typeB) } },
  ]);

  it('valid and invalid answers of both kinds, and reports coalesced into one task, are the same bytes', async () => {
    p = await peers({ ...mixConfig(mix, dir, pccs.url) });
    const u0 = mix.updates[0]!;
    const rd = new Uint8Array(64);
    rd.set(u0.userData.hash);
    const quote = mix.a.quote({ reportData: rd, mrEnclave: mix.mrEnclave });
    const flipped = mix.b.mintDocument({ userData: u0.userData.hash });
    flipped[flipped.length - 1]! ^= 1;
    const other = makeUserData({ attestationData: '1.5' });
    const cases: Case[] = [
      ...bodies,
      { name: 'typeA bound to another userData', body: { userData: other.text, report: reportText(u0.typeA) } },
      { name: 'typeB bound to another userData', body: { userData: other.text, report: reportText(u0.typeB) } },
      { name: 'typeA of another enclave', body: { userData: u0.userData.text, report: reportText(openEnclaveReport(mix.a.quote({ reportData: rd, mrEnclave: new Uint8Array(32).fill(1) }))) } },
      { name: 'typeA with a tampered ISV signature', body: { userData: u0.userData.text, report: reportText(openEnclaveReport(tamperQuote(quote, 'isvSignature'))) } },
      { name: 'typeA with a tampered PCK leaf', body: { userData: u0.userData.text, report: reportText(openEnclaveReport(tamperQuote(quote, 'pckLeaf'))) } },
      { name: 'typeB with a flipped signature byte', body: { userData: u0.userData.text, report: reportText(flipped) } },
      { name: 'typeB with a nonce it does not carry', body: { userData: u0.userData.text, report: reportText(u0.typeB), nonce: '11'.repeat(32) } },
    ];
    const refs = await expectSameAnswers(p, cases);
    await expectSameCounts(p);
    const got = verdicts(refs);
    expect(got.slice(0, bodies.length).every((g) => g.outcome === 'valid')).toBe(true);
    expect(got.slice(bodies.length).every((g) => g.outcome === 'invalid')).toBe(true);

    // A burst on the one worker: the reports behind the first wait and are taken as shared tasks, each with its own answer.
    const before = p.pool.pool!.stats().coalesced;
    const burst = [...cases, ...cases];
    const answers = await Promise.all(burst.map((c) => answer(p!.pooled, c.body)));
    expect(p.pool.pool!.stats().coalesced).toBeGreaterThan(before);
    for (const [i, a] of answers.entries()) {
      const ref = refs[i % cases.length]!;
      expect(a.status).toBe(ref.status);
      expect(a.headers).toEqual(ref.headers);
      expect(a.bytes.equals(ref.bytes), `coalesced: ${burst[i]!.name}`).toBe(true);
    }
  });

  it('a PCCS that answers 503: the typeA answer is unverifiable, the same bytes', async () => {
    // (A PCCS that does not answer at all opens the circuit breaker, whose message names the time
    // it closes again: different in each route, so not comparable byte for byte across services.)
    const failing = await startPccsServer(bundleFromCollateral(mix.a.collateral));
    // Only the TCB info fails (its three attempts in each route), so the answer names it whatever order the pieces are fetched in.
    failing.inject('tcb', ...Array.from({ length: 64 }, () => ({ status: 503, body: 'down' })));
    try {
      dead = await peers({ ...mixConfig(mix, dir, failing.url) });
      const got = verdicts(await expectSameAnswers(dead, [bodies[0]!, bodies[1]!]));
      expect(got.map((g) => g.errorCode ?? g.outcome)).toEqual(['PCCS_UNAVAILABLE', 'valid']);
      expect(got[0]!.outcome).toBe('unverifiable');
    } finally {
      await dead?.close();
      dead = undefined;
      await failing.close();
    }
  });
});
