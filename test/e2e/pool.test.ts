/**
 * The Piscina verification pool: the same outcomes as the in-process core, bytes transferred not
 * copied, a bounded queue answered with 503 + Retry-After (POST /decodeReport and, for a whole
 * batch, POST /verify: overload never looks like a verdict), per-task time limits and recovery
 * from a crashed worker.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerifierPool } from '../../src/pool/pool.js';
import { composeVerifier } from '../../src/compose.js';
import { resolveConfig } from '../../src/config/load.js';
import { createInProcessService } from '../../src/verify/service.js';
import { parseCertificate } from '../../src/attestation/x509/certificate.js';
import type { ReportAnswer, VerifyOutcome } from '../../src/verify/types.js';
import { parsePemChain } from '../../src/attestation/x509/certificate.js';
import { parseChunkedStruct } from '../../src/aleo/struct.js';
import { parseUserData, requestKeysOf } from '../../src/encoding/eras/index.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { readVectorJson, vectorPath } from '../support/paths.js';
import { crl, mintTypeAPki } from '../support/typea-pki.js';
import { makeUserData, openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { CollateralPacker } from '../../src/pool/collateralPack.js';
import type { TaskStages } from '../../src/pool/stages.js';
import { CollateralReuse } from '../../src/pool/collateralReuse.js';
import { CollateralDesk, CollateralLine } from '../../src/pool/collateralPort.js';
import type { Collateral } from '../../src/attestation/typeA/collateral.js';
import { VerifierError } from '../../src/errors.js';
import { typeA } from '../../src/verify/kinds/typeA/index.js';
import { TAMPER_CASES, tamperQuote } from '../support/typea-tamper.js';
import { traceRows, traceStoppingAt } from '../support/check-trace.js';
import { bundleFromCollateral, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { startNotarizerSim, type NotarizerSim } from '../support/notarizer-sim.js';
import { until } from '../support/wait.js';

const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
/** A real notarizer AttestationResponse (POST /verify entry), valid with the document's PCRs as targets. */
const nitroAttestation = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const TYPEA_PLAN = typeA.checks.map((c) => c.id);
const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const root = (p: string) => parsePemChain(readFileSync(p, 'utf8'))[0]!.der;

const setup = {
  policy: {
    targets: { typeA: hex('58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df'), typeB: [hex(doc.pcr0), hex(doc.pcr1), hex(doc.pcr2)] },
    acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] as const,
    allowDebugEnclaves: false,
  },
  roots: { typeA: root(vectorPath('sgx/intel-root/IntelSGXRootCA.pem')), typeB: root(vectorPath('nitro/aws-nitro-enclaves-root-g1.pem')) },
};

describe('VerifierPool', () => {
  let pool: VerifierPool;
  beforeAll(() => {
    pool = new VerifierPool({ threads: 2, maxQueue: 64, taskTimeoutMs: 30_000, setup });
  });
  afterAll(async () => pool?.close());

  it('a batch task (decodeReports) gives, in order, the outcomes of one decodeReport per pair', async () => {
    const nitro = { userData: examples.nitro.request.userData, report: examples.nitro.request.report };
    // Another userData than the report binds: the binding check must fail inside the batch too.
    const otherUserData = examples.sgx.request.userData;
    const pairs = [
      nitro,
      { userData: otherUserData, report: nitro.report },
      { userData: 'not a struct', report: nitro.report },
      nitro,
    ];
    const batch = await pool.decodeReports(pairs);
    const single = await Promise.all(pairs.map((p) => pool.decodeReport(p.userData, p.report)));
    // Equal but for the measured hash time (the batch shares its one hash call out).
    const untimed = (o: VerifyOutcome) => ({ ...o, timings: o.timings && { hashSeconds: typeof o.timings.hashSeconds } });
    expect(batch.map(untimed)).toEqual(single.map(untimed));
    expect(batch.map((o) => o.reportValid)).toEqual([true, false, false, true]);
    expect(batch[1]!.error?.code).toBe(single[1]!.error?.code);
    expect(batch[2]!.error?.code).toBe('STRUCT_SYNTAX');
    expect(await pool.decodeReports([])).toEqual([]);
    // The in-process service's decodeReports: the same outcomes, in order.
    const inProcess = createInProcessService(setup.policy, { roots: { typeA: parseCertificate(setup.roots.typeA), typeB: parseCertificate(setup.roots.typeB) } });
    expect((await inProcess.decodeReports!(pairs)).map(untimed)).toEqual(single.map(untimed));
  });

  it('a batch task computes the keys of the stored requests in the worker when asked, the same as requestKeysOf on the caller\'s thread', async () => {
    const nitro = examples.nitro.request;
    const ten = makeUserData();
    const pairs = [
      { userData: nitro.userData, report: nitro.report, requestKeys: 'whole' as const },
      { userData: nitro.userData, report: nitro.report, requestKeys: { chunks: 8 } },
      { userData: ten.text, report: nitro.report, requestKeys: { chunks: 10 } },
      { userData: nitro.userData, report: nitro.report },
      { userData: 'not a struct', report: nitro.report, requestKeys: 'whole' as const },
    ];
    const outs = await pool.decodeReports(pairs);
    expect(outs[0]!.requestKeys).toEqual(requestKeysOf(parseUserData(nitro.userData), 'whole'));
    expect(outs[1]!.requestKeys).toEqual(requestKeysOf(parseUserData(nitro.userData), { chunks: 8 }));
    expect(outs[1]!.requestKeys!.length).toBeGreaterThan(0);
    expect(outs[2]!.requestKeys).toEqual(requestKeysOf(ten.bytes, { chunks: 10 }));
    expect(outs[3]!.requestKeys).toBeUndefined();
    expect(outs[4]!.requestKeys).toBeUndefined();
    // The verdicts are those of a batch without the keys.
    const plain = await pool.decodeReports(pairs.map((p) => ({ userData: p.userData, report: p.report })));
    expect(outs.map((o) => [o.reportValid, o.error?.code])).toEqual(plain.map((o) => [o.reportValid, o.error?.code]));
  });

  it('verifies the real nitro case in a worker with the in-process result', async () => {
    const out = await pool.decodeReport(examples.nitro.request.userData, examples.nitro.request.report);
    expect(out.error).toBeUndefined();
    expect(out.reportValid).toBe(true);
    expect(out.reportType).toBe('typeB');
    expect(out.decodedData).toEqual(examples.nitro.response.decodedData);
  });

  it('transfers the bytes to the worker instead of copying them', async () => {
    const userData = parseChunkedStruct(examples.nitro.request.userData, 8);
    const report = parseChunkedStruct(examples.nitro.request.report, 10);
    const out = await pool.verifyBytes({ userData, report });
    expect(out.reportValid).toBe(true);
    expect(userData.byteLength).toBe(0);
    expect(report.byteLength).toBe(0);
  });

  it('a worker that dies fails exactly the one task handed to it; the others answer valid', async () => {
    const piscina = (pool as unknown as { piscina: { threads: { terminate(): Promise<number> }[] } }).piscina;
    expect(piscina.threads).toHaveLength(2);
    // terminate() stops worker 0 at once (it runs no more JavaScript), but Piscina learns of it only
    // from the worker's 'exit' event: the two first tasks still go one to each idle worker, so
    // exactly one task is lost with the worker, whatever the speed of the machine.
    const dying = piscina.threads[0]!.terminate();
    const results = await Promise.all(Array.from({ length: 4 }, () => pool.decodeReport(examples.nitro.request.userData, examples.nitro.request.report).then((r) => r, (e) => e)));
    await dying;
    const failed = results.filter((r) => r instanceof Error);
    expect(failed.map((f) => (f as { code?: string }).code)).toEqual(['POOL_WORKER_FAILED']);
    const answered = results.filter((x) => !(x instanceof Error)) as { reportValid: boolean }[];
    expect(answered.map((r) => r.reportValid)).toEqual([true, true, true]);
    // the pool replaced the worker and keeps serving on two threads
    const after = await Promise.all([0, 1].map(() => pool.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)));
    expect(after.map((r) => r.reportValid)).toEqual([true, true]);
    expect(pool.stats().threads).toBe(2);
  });

  it('while every worker is busy, waiting single reports are verified together (coalesced), each with its own outcome', async () => {
    const one = new VerifierPool({ threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, setup });
    try {
      const nitro = examples.nitro.request;
      const pairs = [nitro, { userData: examples.sgx.request.userData, report: nitro.report }, nitro, nitro, nitro, nitro];
      // All submitted in one turn: the first runs alone at once, the next four wait and go to the
      // worker together, the sixth alone after them.
      const outs = await Promise.all(pairs.map((p) => one.decodeReport(p.userData, p.report)));
      expect(one.stats().coalesced).toBe(4);
      expect(outs.map((o) => o.reportValid)).toEqual([true, false, true, true, true, true]);
      const alone = await one.decodeReport(pairs[1]!.userData, pairs[1]!.report);
      expect(outs[1]!.error?.code).toBe(alone.error?.code);
      expect(one.stats().coalesced).toBe(4);
    } finally {
      await one.close();
    }
  });

  it('a shared batch whose worker dies: each of its reports is verified again alone, none fails for another', async () => {
    const one = new VerifierPool({ threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, setup });
    try {
      const nitro = examples.nitro.request;
      const piscina = (one as unknown as { piscina: { threads: { terminate(): Promise<number> }[] } }).piscina;
      let dying: Promise<number> | undefined;
      // The first task runs alone; when its answer arrives, the worker is stopped before the two
      // waiting tasks are handed to it together (Piscina learns of the exit only from its 'exit'
      // event, so the shared batch goes to the stopped worker and fails whatever the speed).
      const first = one.decodeReport(nitro.userData, nitro.report).then((o) => {
        dying = piscina.threads[0]!.terminate();
        return o;
      });
      const rest = [0, 1].map(() => one.decodeReport(nitro.userData, nitro.report).then((r) => r, (e: unknown) => e));
      const outs = await Promise.all([first, ...rest]);
      await dying;
      expect(outs.map((o) => (o instanceof Error ? (o as { code?: string }).code : (o as VerifyOutcome).reportValid))).toEqual([true, true, true]);
      expect(one.stats().coalesced).toBe(2);
    } finally {
      await one.close();
    }
  });

  it('POST /decodeReport answers (their bytes made in the worker) coalesce with outcomes: each report gets what it asked for; a batch whose worker dies answers each again alone', async () => {
    const one = new VerifierPool({ threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, setup });
    try {
      const nitro = examples.nitro.request;
      const other = { userData: examples.sgx.request.userData, report: nitro.report };
      const bytes = (a: ReportAnswer) => Buffer.from(a.body).toString('utf8');
      // Each alone first (the pool idle: one task each), as the references.
      const validAlone = await one.decodeReportAnswer(nitro.userData, nitro.report);
      const mismatchAlone = await one.decodeReportAnswer(other.userData, other.report);
      expect(validAlone.body.buffer.byteLength).toBe(validAlone.body.byteLength);
      expect(validAlone.facts).toMatchObject({ reportType: 'typeB', reportValid: true });
      expect(mismatchAlone.facts).toMatchObject({ reportType: 'typeB', reportValid: false, error: { code: 'USERDATA_HASH_MISMATCH' } });
      expect(JSON.parse(bytes(mismatchAlone))).toMatchObject({ reportValid: false, outcome: 'invalid', errorCode: 'USERDATA_HASH_MISMATCH' });
      const coalescedBefore = one.stats().coalesced;
      // The first runs alone at once; the three behind it go to the worker together.
      const [a0, a1, o2, a3] = await Promise.all([
        one.decodeReportAnswer(nitro.userData, nitro.report),
        one.decodeReportAnswer(other.userData, other.report),
        one.decodeReport(nitro.userData, nitro.report),
        one.decodeReportAnswer(nitro.userData, nitro.report, { nonce: '00'.repeat(32) }),
      ]);
      expect(one.stats().coalesced - coalescedBefore).toBe(3);
      expect(bytes(a0!)).toBe(bytes(validAlone));
      expect(bytes(a1!)).toBe(bytes(mismatchAlone));
      expect(o2).toMatchObject({ reportType: 'typeB', reportValid: true });
      expect('body' in o2!).toBe(false);
      expect(a3!.facts).toMatchObject({ reportValid: false, error: { code: 'TYPEB_NONCE_MISMATCH' } });
      // The worker stopped before the two waiting answers are handed to it together: each is made again alone.
      const piscina = (one as unknown as { piscina: { threads: { terminate(): Promise<number> }[] } }).piscina;
      let dying: Promise<number> | undefined;
      const first = one.decodeReportAnswer(nitro.userData, nitro.report).then((a) => {
        dying = piscina.threads[0]!.terminate();
        return a;
      });
      const rest = [nitro, other].map((p) => one.decodeReportAnswer(p.userData, p.report));
      const again = await Promise.all([first, ...rest]);
      await dying;
      expect(again.map(bytes)).toEqual([bytes(validAlone), bytes(validAlone), bytes(mismatchAlone)]);
      expect(one.stats().coalesced - coalescedBefore).toBe(5);
    } finally {
      await one.close();
    }
  });

  it('runs each worker under the V8 limits it is given; the composed pool under the config workerYoungGenerationMb', async () => {
    const limited = new VerifierPool({ threads: 1, maxQueue: 8, taskTimeoutMs: 30_000, resourceLimits: { maxYoungGenerationSizeMb: 12 }, setup });
    try {
      expect((await limited.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)).reportValid).toBe(true);
      // What the worker's V8 applied (Node reads it back from the worker), not what was asked.
      expect(limited.workerResourceLimits()).toMatchObject([{ maxYoungGenerationSizeMb: 12 }]);
    } finally {
      await limited.close();
    }
    const config = resolveConfig({ port: 0, liveCheck: { skip: true }, workers: 1, workerYoungGenerationMb: 6 }, process.cwd());
    const composed = composeVerifier(config, { targets: setup.policy.targets });
    try {
      expect((await composed.service.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)).reportValid).toBe(true);
      expect(composed.pool!.workerResourceLimits()).toMatchObject([{ maxYoungGenerationSizeMb: 6 }]);
    } finally {
      await composed.close();
    }
  });

  it('fails a task that exceeds its time limit and keeps serving', async () => {
    const slow = new VerifierPool({ threads: 1, maxQueue: 8, taskTimeoutMs: 1, setup });
    try {
      await expect(slow.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)).rejects.toMatchObject({ code: 'POOL_TASK_TIMEOUT' });
      // the timed-out worker was terminated and replaced (Piscina does both in its abort handler,
      // before the task's rejection is seen here): the pool takes and limits the next task too
      expect(slow.stats().threads).toBe(1);
      await expect(slow.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)).rejects.toMatchObject({ code: 'POOL_TASK_TIMEOUT' });
    } finally {
      await slow.close();
    }
    expect((await pool.decodeReport(examples.nitro.request.userData, examples.nitro.request.report)).reportValid).toBe(true);
  });
});

describe('bounded queue (pool and HTTP)', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({
      workers: 1,
      maxQueue: 1,
      pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2],
      uniqueIdTarget: '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df',
    });
  });
  afterAll(async () => srv?.close());

  it('refuses at once, in submission order, whatever exceeds threads + maxQueue', async () => {
    const small = new VerifierPool({ threads: 1, maxQueue: 1, taskTimeoutMs: 30_000, setup });
    try {
      // typeB tasks reach the bound check without waiting: the five are counted in this tick.
      const results = await Promise.all(Array.from({ length: 5 }, () => small.decodeReport(examples.nitro.request.userData, examples.nitro.request.report).then((r) => r, (e) => e)));
      expect(results.map((r) => (r instanceof Error ? (r as { code?: string }).code : r.reportValid))).toEqual([true, true, 'POOL_OVERLOADED', 'POOL_OVERLOADED', 'POOL_OVERLOADED']);
    } finally {
      await small.close();
    }
  });

  it('answers 503 with Retry-After when the queue is full, the others valid', async () => {
    // Over HTTP the arrival of the requests depends on the scheduler: rounds of 12 concurrent
    // requests are sent until one finds the queue full (the first round nearly always does).
    const seen: { status: number; body: any; headers: Headers }[] = [];
    for (let round = 0; round < 20 && !seen.some((r) => r.status === 503); round++) {
      seen.push(...(await Promise.all(Array.from({ length: 12 }, () => postJson(`${srv.url}/decodeReport`, examples.nitro.request)))));
    }
    expect(seen.filter((r) => r.status !== 200 && r.status !== 503)).toEqual([]);
    expect(seen.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const rejected = seen.filter((r) => r.status === 503);
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    for (const r of rejected) {
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toMatchObject({ reportValid: false, errorCode: 'POOL_OVERLOADED' });
    }
    for (const r of seen.filter((x) => x.status === 200)) expect(r.body.reportValid).toBe(true);
  });

  it('POST /verify takes a batch the pool can hold whole; a larger one in parts it can hold, never a 503 that no retry can cure', async () => {
    // A batch that fits is verified whole.
    const taken = await postJson(`${srv.url}/verify`, { reports: [nitroAttestation, nitroAttestation] });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ success: true, validReports: [0, 1] });
    // workers 1 + maxQueue 1: two places. A batch of six can never fit whole: on an idle pool it is
    // verified in three parts of two (issue 32, item 6: it used to be a 503 "retry shortly" for ever).
    const parts = await postJson(`${srv.url}/verify`, { reports: Array.from({ length: 6 }, () => nitroAttestation) });
    expect(parts.status).toBe(200);
    expect(parts.body).toEqual({ success: true, validReports: [0, 1, 2, 3, 4, 5] });
  });
});

describe('a full pool over HTTP: POST /verify answers 503, the reports it holds get their own outcome', () => {
  const pki = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
  const dir = mkdtempSync(join(tmpdir(), 'pool-full-'));
  let pccs: PccsServer;
  let sim: NotarizerSim;
  let srv: RunningServer;
  beforeAll(async () => {
    pccs = await startPccsServer(bundleFromCollateral(pki.collateral));
    sim = await startNotarizerSim({ kind: 'typeA', typeA: pki, whitelist: ['api.example.com'], targets: { 'api.example.com/p': { body: '{"p":"42"}' } } });
    writeFileSync(join(dir, 'typea-root.pem'), pki.root.pem);
    srv = await startServer({
      workers: 1,
      maxQueue: 1,
      pccsUrl: pccs.url,
      trustedRoots: { typeA: join(dir, 'typea-root.pem') },
      verificationTime: new Date(pki.time).toISOString(),
      uniqueIdTarget: '5a'.repeat(32),
      pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2],
    });
  });
  afterAll(async () => {
    await srv?.close();
    await sim?.close();
    await pccs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('while two typeA reports wait for the PCCS the pool is full: other batches get 503 + Retry-After; the held ones end unverifiable, not invalid', async () => {
    const notarized = await postJson(`${sim.url}/notarize`, { url: 'api.example.com/p', requestMethod: 'GET', selector: 'p', responseFormat: 'json', encodingOptions: { value: 'int' }, debugRequest: false });
    expect(notarized.status).toBe(200);
    const typeAEntry = notarized.body;
    // The PCCS holds its QE identity answer until released, then has none (404) for either report.
    let release!: () => void;
    pccs.inject('qe/identity', { status: 404, until: new Promise<void>((r) => (release = r)) }, { status: 404 });
    const held = postJson(`${srv.url}/verify`, { reports: [typeAEntry, typeAEntry] });
    // Both reports were taken together (the batch is admitted whole); the first one's collateral
    // request reaching the PCCS means both hold their places: the pool (1 worker + 1 queued) is full.
    await until('the PCCS to be asked for the QE identity', () => pccs.requests.some((r) => r.includes('qe/identity')));

    const refused = await postJson(`${srv.url}/verify`, { reports: [nitroAttestation] });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toMatchObject({ success: false, validReports: [], errorCode: 'POOL_OVERLOADED' });
    const single = await postJson(`${srv.url}/decodeReport`, examples.nitro.request);
    expect(single.status).toBe(503);
    expect(single.body).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'POOL_OVERLOADED' });

    release();
    const r = await held;
    pccs.clearInjected();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, validReports: [], unverifiableReports: [0, 1] });
    expect(r.body.reportErrors).toEqual([0, 1].map((index) => ({ index, errorCode: 'PCCS_NOT_FOUND', errorMessage: expect.any(String), outcome: 'unverifiable' })));
    expect(r.body.errorMessage).toMatch(/^report 0: could not verify: /);

    // The pool is free again: the same batch of valid reports is valid.
    const after = await postJson(`${srv.url}/verify`, { reports: [nitroAttestation] });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ success: true, validReports: [0] });
    // Refusals and the PCCS outage are counted as unverifiable, not invalid.
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    expect(metrics).toMatch(/^verifier_verifications_total\{kind="unknown",outcome="unverifiable"\} 2$/m);
    expect(metrics).toMatch(/^verifier_verifications_total\{kind="typeA",outcome="unverifiable"\} 2$/m);
    expect(metrics).not.toMatch(/outcome="invalid"/);
  });
});

describe('VerifierPool with typeA collateral from the main thread', () => {
  const UP_TO_DATE = { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' };
  const pki = mintTypeAPki({ pckTcb: UP_TO_DATE });
  const mrEnclave = new Uint8Array(32).fill(0x5a);
  const calls: string[] = [];
  let source: { version: string; collateral: Collateral } | Error = { version: 'v1', collateral: pki.collateral };
  let pool: VerifierPool;
  beforeAll(() => {
    pool = new VerifierPool({
      threads: 2, maxQueue: 64, taskTimeoutMs: 30_000,
      setup: {
        policy: { ...setup.policy, targets: { ...setup.policy.targets, typeA: mrEnclave }, acceptedTcbStatuses: ['UpToDate'] },
        roots: { typeA: pki.root.cert.der, typeB: setup.roots.typeB },
        time: pki.time,
      },
      collateral: {
        async rawForSubject() {
          calls.push('raw');
          if (source instanceof Error) throw source;
          return { key: 'k', ...source };
        },
      },
    });
  });
  afterAll(async () => pool?.close());

  const minted = (i: number) => {
    const ud = makeUserData({ attestationData: `${100 + i}.5`, timestamp: 1725008028 + i });
    const rd = new Uint8Array(64);
    rd.set(ud.hash);
    return { userData: ud.text, quote: pki.quote({ reportData: rd, mrEnclave }) };
  };
  const request = (i: number) => {
    const { userData, quote } = minted(i);
    return { userData, report: reportText(openEnclaveReport(quote)) };
  };

  it('verifies minted quotes in both workers with one shared copy of each collateral version', async () => {
    const outcomes = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => pool.decodeReport(request(i).userData, request(i).report)));
    for (const o of outcomes) expect(o.reportValid, JSON.stringify(o.error)).toBe(true);
    expect(calls.length).toBe(6);
    // a refresh (new version) is picked up by the workers
    source = { version: 'v2', collateral: pki.collateral };
    const again = await pool.decodeReport(request(7).userData, request(7).report);
    expect(again.reportValid).toBe(true);
  });

  it('reports each task\'s stages from the worker: queue wait, run time, the collateral wait of a typeA task', async () => {
    const seen: TaskStages[] = [];
    const staged = new VerifierPool({
      threads: 1, maxQueue: 8, taskTimeoutMs: 30_000,
      setup: {
        policy: { ...setup.policy, targets: { ...setup.policy.targets, typeA: mrEnclave }, acceptedTcbStatuses: ['UpToDate'] },
        roots: { typeA: pki.root.cert.der, typeB: setup.roots.typeB },
        time: pki.time,
      },
      collateral: { rawForSubject: async () => ({ version: 'v1', collateral: pki.collateral }) },
      onTaskStages: (s) => seen.push(s),
    });
    try {
      const outs = await Promise.all([20, 21, 22].map((i) => staged.decodeReport(request(i).userData, request(i).report)));
      for (const o of outs) expect(o.reportValid, JSON.stringify(o.error)).toBe(true);
      expect(seen).toHaveLength(3);
      for (const s of seen) {
        expect(s.runSeconds).toBeGreaterThan(0);
        expect(s.queueWaitSeconds).toBeGreaterThanOrEqual(0);
        expect(s.collateralWaitSeconds).toBeGreaterThan(0);
        expect(s.collateralWaitSeconds!).toBeLessThanOrEqual(s.runSeconds);
        expect(Array.isArray(s.gcPauses)).toBe(true);
      }
      // one thread: the tasks ran one after the other, so the last waited in the queue at least as long as the first ran
      const byWait = [...seen].sort((a, b) => a.queueWaitSeconds - b.queueWaitSeconds);
      expect(byWait[2]!.queueWaitSeconds).toBeGreaterThanOrEqual(byWait[0]!.runSeconds * 0.9);
    } finally {
      await staged.close();
    }
  });

  it('reports the collateral failure of the main thread as the verdict, in order', async () => {
    source = new VerifierError('PCCS_UNAVAILABLE', 'PCCS at http://127.0.0.1:9 is unreachable');
    const o = await pool.decodeReport(request(9).userData, request(9).report);
    expect(o.reportValid).toBe(false);
    expect(o.error).toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringContaining('unreachable') });
    // Every collateral-free check of the quote passed in the worker before the collateral failure counted.
    expect(traceRows(o.checks!, TYPEA_PLAN)).toEqual(traceStoppingAt(TYPEA_PLAN, 'typeA.collateral', 'PCCS_UNAVAILABLE'));
  });

  it('with the main thread\'s collateral failed, a forged quote still fails at its own check in the worker', async () => {
    source = new VerifierError('PCCS_UNAVAILABLE', 'PCCS at http://127.0.0.1:9 is unreachable');
    const { userData, quote } = minted(10);
    for (const { part, check, code } of TAMPER_CASES) {
      const asked = calls.length;
      const o = await pool.decodeReport(userData, reportText(openEnclaveReport(tamperQuote(quote, part))));
      expect(o.error?.code, part).toBe(code);
      expect(traceRows(o.checks!, TYPEA_PLAN), part).toEqual(traceStoppingAt(TYPEA_PLAN, check, code));
      // the worker asks for collateral only at the collateral step: a forged quote never reaches the source
      expect(calls.length, part).toBe(asked);
    }
  });

  it('holds a task\'s time limit while the main thread fetches its collateral', async () => {
    const LIMIT_MS = 2000;
    let release!: () => void;
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    let slowSource = false;
    const slow = new VerifierPool({
      threads: 1, maxQueue: 4, taskTimeoutMs: LIMIT_MS,
      setup: {
        policy: { ...setup.policy, targets: { ...setup.policy.targets, typeA: mrEnclave }, acceptedTcbStatuses: ['UpToDate'] },
        roots: { typeA: pki.root.cert.der, typeB: setup.roots.typeB },
        time: pki.time,
      },
      collateral: {
        async rawForSubject() {
          if (slowSource) {
            asked();
            await new Promise<void>((r) => (release = r));
          }
          return { key: 'k', version: 'slow', collateral: pki.collateral };
        },
      },
    });
    try {
      // a warm worker first (a cold one may spend the limit starting up)
      let warm;
      for (let i = 0; i < 10 && warm?.reportValid !== true; i++) warm = await slow.decodeReport(request(12).userData, request(12).report);
      expect(warm?.reportValid, JSON.stringify(warm?.error)).toBe(true);
      slowSource = true;
      const pending = slow.decodeReport(request(11).userData, request(11).report);
      const first = await Promise.race([wasAsked.then(() => 'asked'), pending.then((o) => o)]);
      expect(first).toBe('asked');
      // the PCCS answers well after the task's limit: the limit must not count this wait
      await new Promise((r) => setTimeout(r, 2 * LIMIT_MS + 500));
      release();
      const o = await pending;
      expect(o.error).toBeUndefined();
      expect(o.reportValid).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('a worker reuses the collateral it was given (one question to the main thread), and a refresh reaches it when its window closes', async () => {
    let served: { version: string; collateral: Collateral } = { version: 'r1', collateral: pki.collateral };
    let asked = 0;
    const make = (collateralReuseMs: number) =>
      new VerifierPool({
        threads: 1, maxQueue: 8, taskTimeoutMs: 30_000, collateralReuseMs,
        setup: {
          policy: { ...setup.policy, targets: { ...setup.policy.targets, typeA: mrEnclave }, acceptedTcbStatuses: ['UpToDate'] },
          roots: { typeA: pki.root.cert.der, typeB: setup.roots.typeB },
          time: pki.time,
        },
        collateral: {
          async rawForSubject() {
            asked++;
            return served;
          },
        },
      });
    const reusing = make(600_000);
    try {
      for (const i of [30, 31, 32, 33, 34]) expect((await reusing.decodeReport(request(i).userData, request(i).report)).reportValid).toBe(true);
      expect(asked).toBe(1);
      // a forged quote still fails at its own check (the reused collateral is looked up only at the collateral step)
      const { userData, quote } = minted(35);
      const forged = await reusing.decodeReport(userData, reportText(openEnclaveReport(tamperQuote(quote, TAMPER_CASES[0]!.part))));
      expect(forged.error?.code).toBe(TAMPER_CASES[0]!.code);
    } finally {
      await reusing.close();
    }
    // A short window: the PCCS serves a new version (the PCK CRL now revokes the platform's leaf),
    // and the worker's verdict follows once its window has closed.
    const refreshing = make(50);
    try {
      expect((await refreshing.decodeReport(request(36).userData, request(36).report)).reportValid).toBe(true);
      const DAY = 86_400_000;
      served = { version: 'r2', collateral: { ...pki.collateral, pckCrl: crl(pki.pckCa, pki.time - 5 * DAY, pki.time + 25 * DAY, [0x4fb8af9acd563694338d1cbd6702a5d2ba281b69n]) } };
      const revoked = await until('the refreshed collateral to reach the worker', async () => {
        const o = await refreshing.decodeReport(request(37).userData, request(37).report);
        return o.reportValid ? false : o;
      });
      expect(revoked.error?.code).toBe('TYPEA_PCK_CERT_REVOKED');
    } finally {
      await refreshing.close();
    }
  });

  it('the main thread answers a ticket\'s question on the pool\'s channels, and says when it packs a version it had not packed: a worker then drops what it reuses', async () => {
    const name = `test-collateral-${process.pid}-${Math.random()}`;
    let version = 'a';
    const desk = new CollateralDesk({ rawForSubject: async () => ({ version, collateral: { v: version } }) }, name);
    const reuse = new CollateralReuse(600_000);
    let changes = 0;
    const line = new CollateralLine(name, () => {
      changes++;
      reuse.clear();
    });
    const holds: boolean[] = [];
    const ask = async () => {
      const ticket = desk.open((on) => holds.push(on));
      try {
        return await line.request(ticket, { pckCertPems: ['x'] });
      } finally {
        desk.close(ticket);
      }
    };
    try {
      // the first version is news (said on the answer channel before the answer itself)
      const first = await ask();
      expect(changes).toBe(1);
      expect(holds).toEqual([true, false]);
      reuse.set('k', first);
      await ask(); // the same version: nothing to say
      expect(changes).toBe(1);
      expect(reuse.get('k')?.version).toBe('a');
      version = 'b';
      expect((await ask()).version).toBe('b');
      expect(changes).toBe(2);
      expect(reuse.get('k')).toBeUndefined();
    } finally {
      desk.shutdown();
      line.close();
    }
  });

  it('packs each version once and hands out the same shared buffer', () => {
    const packer = new CollateralPacker();
    const a = packer.pack('v1', pki.collateral);
    expect(packer.pack('v1', pki.collateral)).toBe(a);
    expect(a.packed).toBeInstanceOf(SharedArrayBuffer);
    expect(packer.pack('v2', pki.collateral).packed).not.toBe(a.packed);
  });
});
