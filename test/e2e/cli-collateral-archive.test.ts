/**
 * The collateral archive through the CLI as real processes (issue 49): `collateral import` admits
 * Intel's signed documents only (a tampered TCB info is refused and nothing is written),
 * `collateral export` writes a bundle that another archive, in another process, imports to the
 * same bytes, and `verify --as-of T --archive DIR` judges an update under the TCB evaluation in
 * force at T — the same verdict, byte for byte, from either archive. On Intel's real documents
 * (evaluations 15, 17, 20 and the list of 2025-06-02) the README SGX update cannot be judged at
 * 2024-06-15 or 2025-06-15 from what was ever published, and the CLI says exactly what is missing;
 * under the test PKI, evaluations 19 and 20 of the same platform give valid then, invalid now.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVectorJson, VECTORS } from '../support/paths.js';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { mintedUpdates, MRENCLAVE } from '../support/ledger-fixture.js';
import { historyWires } from '../support/history-archive.js';
import { startLedgerNode } from '../support/ledger-node.js';
import { bootstrap } from '../../src/bootstrap.js';
import { configuredTargets, resolveConfig } from '../../src/config/load.js';
import { composeVerifier } from '../../src/compose.js';
import { outcomeFor } from '../../src/errorCodes.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { childEnv, runMain } from '../support/process.js';
import { parseChunkedStruct, REPORT_CHUNKS } from '../../src/aleo/struct.js';

const pkg = JSON.parse(readFileSync(resolve(process.cwd(), 'package.json'), 'utf8')) as { name: string; version: string };

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const SGX = resolve(VECTORS, 'sgx');
const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const doc = readVectorJson<any>('nitro/manifest.json').vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const DAY = 86_400_000;

type Run = Awaited<ReturnType<typeof runMain>>;

const cli = (args: string[]): Promise<Run> => runMain(args, { entry: CLI, env: { ...childEnv(), NODE_NO_WARNINGS: '1' } });

let dir: string;
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-archive-'));
});

describe("Intel's real documents", () => {
  let config: string;
  let archive: string;
  let ud: string;
  let report: string;
  const rootPem = () => readFileSync(join(SGX, 'intel-root/IntelSGXRootCA.pem'), 'utf8');
  const chain2026 = () => readFileSync(join(SGX, 'intel-pcs-2026-09-22/tcb_signing_issuer_chain.pem'), 'utf8');

  beforeAll(async () => {
    config = file('real-config.json', JSON.stringify({ uniqueIdTarget: '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df', pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2] }));
    archive = join(dir, 'real-archive');
    ud = file('sgx.ud', examples.sgx.request.userData);
    report = file('sgx.report', examples.sgx.request.report);
    const chain2018 = file('chain-2018.pem', readFileSync(join(SGX, 'mobilecoin-2023-07/tcb_signer.pem'), 'utf8') + rootPem());
    const chain26 = file('chain-2026.pem', chain2026());
    const fixture = JSON.parse(readFileSync(resolve(process.cwd(), 'test/fixtures/intel/tcb-evaluation-numbers-2025-06-02.json'), 'utf8'));
    const list = file('tcbeval-2025-06-02.json', `{"tcbEvaluationDataNumbers":${fixture.raw},"signature":"${fixture.signature}"}`);
    const runs = [
      await cli(['collateral', 'import', join(SGX, 'mobilecoin-2023-07/fmspc_00906ED50000_2023_07_12.json'), join(SGX, 'mobilecoin-2023-07/qe_identity.json'), '--issuer-chain', chain2018, '--archive', archive, '--config', config]),
      await cli(['collateral', 'import', join(SGX, 'teekit/tcbInfo-sgx-00906ed50000.json'), list, '--issuer-chain', chain26, '--archive', archive, '--config', config]),
      await cli(['collateral', 'import', join(SGX, 'derived-collateral/oracle-sgx-report.collateral-2026-09-22.json'), '--archive', archive, '--config', config]),
    ];
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.map((r) => r.stdout.split('\n').filter(Boolean).map((l) => l.split(' ').slice(0, -1).join(' ')))).toEqual([
      ['imported tcbInfo', 'imported qeIdentity'],
      ['imported tcbInfo', 'imported tcbEvaluations'],
      ['imported tcbInfo', 'imported qeIdentity', 'imported pckCrl', 'imported rootCaCrl'],
    ]);
  }, 120_000);

  it('a tampered TCB info is refused on import and nothing of it is written', async () => {
    const before = await cli(['collateral', 'export', '--archive', archive, '--out', join(dir, 'before.bundle'), '--config', config]);
    expect(before.code, before.stderr).toBe(0);
    const wire = readFileSync(join(SGX, 'mobilecoin-2023-07/fmspc_00906ED50000_2023_07_12.json'), 'utf8').replace('"tcbEvaluationDataNumber":15', '"tcbEvaluationDataNumber":16');
    const r = await cli(['collateral', 'import', file('tampered-tcb.json', wire), '--issuer-chain', join(dir, 'chain-2018.pem'), '--archive', archive, '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^refused tcbInfo from .*tampered-tcb\.json: TYPEA_TCB_INFO_BAD_SIGNATURE: /m);
    const after = await cli(['collateral', 'export', '--archive', archive, '--out', join(dir, 'after.bundle'), '--config', config]);
    expect(readFileSync(join(dir, 'after.bundle'), 'utf8')).toBe(readFileSync(join(dir, 'before.bundle'), 'utf8'));
    expect(after.stdout).toBe('exported 8 documents\n');
  }, 120_000);

  it('at 2025-06-15 (evaluation 17 under update=standard): no QE identity of 17 was ever published, so no verdict, naming what to import', async () => {
    const r = await cli(['verify', '--user-data', ud, '--report', report, '--as-of', '2025-06-15T00:00:00Z', '--archive', archive, '--config', config]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('outcome:       unverifiable');
    expect(r.stdout).toMatch(/failure: +TYPEA_TCB_EVALUATION_UNAVAILABLE: typeA: evaluation 17 was in force for FMSPC 00906ED50000 at 2025-06-15T00:00:00Z \(update=standard\), and the archive has no QE identity of evaluation 17: add Intel's signed copy to the archive with "oracle-verifier collateral import FILE --archive .*real-archive" \(Intel PCS: qe\/identity\?tcbEvaluationDataNumber=17\)/);
  }, 120_000);

  it('at 2024-06-15: the only list at hand starts at evaluation 17, so the evaluation in force cannot be decided (never a guess)', async () => {
    const r = await cli(['verify', '--user-data', ud, '--report', report, '--as-of', '2024-06-15T00:00:00Z', '--archive', archive, '--config', config, '--tcb-update', 'standard']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/TYPEA_TCB_EVALUATION_UNAVAILABLE: typeA: the TCB evaluation in force for FMSPC 00906ED50000 at 2024-06-15T00:00:00Z \(update=standard\) cannot be decided: no evaluation at hand was in force .* the oldest at hand, 17, is in force from 2025-03-12T00:00:00Z; an older signed list is needed/);
  }, 120_000);

  it('--as-of and --archive go together, and --tcb-update takes early or standard', async () => {
    expect((await cli(['verify', '--user-data', ud, '--report', report, '--as-of', '2025-06-15T00:00:00Z', '--config', config])).code).toBe(2);
    const bad = await cli(['verify', '--user-data', ud, '--report', report, '--as-of', '2025-06-15T00:00:00Z', '--archive', archive, '--tcb-update', 'late', '--config', config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tcb-update "late": expected early or standard');
  }, 120_000);
});

describe('the test PKI: the same platform valid under evaluation 19, OutOfDate under 20', () => {
  let env: MintedCliEnv;
  let ud: string;
  let report: string;
  let archiveA: string;
  let archiveB: string;
  let T0: number;

  beforeAll(async () => {
    env = await startMintedCliEnv(dir, MRENCLAVE);
    T0 = env.typeA.time;
    const pki = env.typeA;
    const h = historyWires(pki);
    const chain = file('minted-chain.pem', h.chain);
    const docs = [file('tcb19.json', h.wires.tcb19), file('tcb20.json', h.wires.tcb20), file('qe19.json', h.wires.qe19), file('qe20.json', h.wires.qe20), file('list.json', h.wires.list)];
    const crls = file('crls.bundle', ['{"format":"oracle-verifier-collateral-bundle/1"}', ...h.crls.map((c) => JSON.stringify(c))].join('\n') + '\n');
    archiveA = join(dir, 'minted-a');
    archiveB = join(dir, 'minted-b');
    const a = await cli(['collateral', 'import', ...docs, '--issuer-chain', chain, '--archive', archiveA, '--config', env.configFile]);
    expect(a.code, a.stderr).toBe(0);
    const c = await cli(['collateral', 'import', crls, '--archive', archiveA, '--config', env.configFile]);
    expect(c.code, c.stderr).toBe(0);
    // Under Intel's pinned root (the bundled config), the test PKI's documents are refused.
    const refused = await cli(['collateral', 'import', docs[0]!, '--issuer-chain', chain, '--archive', join(dir, 'intel-only')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refused tcbInfo .*TYPEA_TCB_SIGNING_CHAIN_INVALID/);
    const u = mintedUpdates(env).sgx('42.00000001');
    ud = file('minted.ud', u.userData);
    report = file('minted.report', u.report);
  }, 180_000);

  afterAll(async () => {
    await env?.pccs.close();
  });

  const verifyAt = (t: number, archive: string) => cli(['verify', '--user-data', ud, '--report', report, '--as-of', new Date(t).toISOString(), '--archive', archive, '--tcb-update', 'early', '--config', env.configFile]);

  it('valid at T0 - 100 days (evaluation 19), invalid at T0 (evaluation 20), each naming what it was judged with', async () => {
    const then = await verifyAt(T0 - 100 * DAY, archiveA);
    expect(then.code, then.stdout + then.stderr).toBe(0);
    expect(then.stdout).toContain('TCB status:    UpToDate');
    expect(then.stdout).toMatch(/judged as of: {2}\S+, TCB evaluation 19 \(update=early\)\ncollateral: {4}tcbInfo [0-9a-f]{64}, qeIdentity [0-9a-f]{64}, pckCrl [0-9a-f]{64}, rootCaCrl [0-9a-f]{64}\n/);
    // Valid then; today, under evaluation 20, the platform is OutOfDate, which the policy refuses.
    expect(then.stdout).toMatch(/\ntoday: {9}not accepted \(TYPEA_TCB_STATUS_REJECTED\): OutOfDate under TCB evaluation 20, since evaluation 20; advisories INTEL-SA-00615\nevidence: {6}report [0-9a-f]{64}, userData [0-9a-f]{64}, policy [0-9a-f]{64}, \S+\/\d+\.\d+\.\d+\n$/);
    const now = await verifyAt(T0, archiveA);
    expect(now.code).toBe(1);
    expect(now.stdout).toMatch(/failure: +TYPEA_TCB_STATUS_REJECTED/);
    expect(now.stdout).toContain('TCB evaluation 20 (update=early)');
  }, 120_000);

  it('an exported archive imported by another process reproduces the same bundle and the same verdicts, byte for byte', async () => {
    const bundleA = join(dir, 'a.bundle');
    expect((await cli(['collateral', 'export', '--archive', archiveA, '--out', bundleA, '--config', env.configFile])).code).toBe(0);
    const imported = await cli(['collateral', 'import', bundleA, '--archive', archiveB, '--config', env.configFile]);
    expect(imported.code, imported.stderr).toBe(0);
    const bundleB = join(dir, 'b.bundle');
    expect((await cli(['collateral', 'export', '--archive', archiveB, '--out', bundleB, '--config', env.configFile])).code).toBe(0);
    expect(readFileSync(bundleB, 'utf8')).toBe(readFileSync(bundleA, 'utf8'));
    for (const t of [T0 - 100 * DAY, T0]) {
      const [a, b] = await Promise.all([verifyAt(t, archiveA), verifyAt(t, archiveB)]);
      expect(b.stdout.replaceAll(archiveB, 'ARCHIVE')).toBe(a.stdout.replaceAll(archiveA, 'ARCHIVE'));
      expect(b.code).toBe(a.code);
    }
  }, 180_000);

  it('reverify --archive judges each ledger update at its block\'s timestamp, through the worker pool and in process, on both block routes', async () => {
    // The same minted update in two blocks: at T0 - 100 days (evaluation 19 in force) and at T0 (20).
    const u = mintedUpdates(env).sgx('42.00000002');
    const chain = new LedgerChain(10, 12);
    chain.add(10, [t.setDataSgx('official_oracle.aleo', u.userData, u.report)]);
    chain.add(11, [t.setDataSgx('official_oracle.aleo', u.userData, u.report)]);
    chain.setTimestamp(10, Math.floor((T0 - 100 * DAY) / 1000));
    chain.setTimestamp(11, Math.floor(T0 / 1000));
    chain.setTimestamp(12, Math.floor(T0 / 1000) + 3);
    // --at: only the test PKI's root is checked at load, valid from years ahead; the updates are judged at their blocks' times.
    const outputs: string[] = [];
    for (const [route, workers] of [['blocks', '1'], ['transactions', '0']] as const) {
      const node = await startLedgerNode();
      chain.install(node, { transactionsRoute: route === 'transactions' });
      try {
        const out = join(dir, `history-${route}.jsonl`);
        const r = await cli(['reverify', '--node', node.url, '--program', 'official_oracle', '--from', '10', '--to', '13', '--block-source', route, '--archive', archiveA, '--tcb-update', 'early', '--workers', workers, '--at', new Date(T0).toISOString(), '--out', out, '--progress-interval', '0', '--config', env.configFile]);
        expect(r.code, r.stderr).toBe(1); // one invalid update
        const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        expect(records.map((x) => [x.blockHeight, x.blockTimestamp, x.outcome, x.judgedAsOf?.with?.tcbEvaluation, x.tcbStatus])).toEqual([
          [10, new Date(Math.floor((T0 - 100 * DAY) / 1000) * 1000).toISOString(), 'valid', 19, 'UpToDate'],
          [11, new Date(Math.floor(T0 / 1000) * 1000).toISOString(), 'invalid', 20, 'OutOfDate'],
        ]);
        for (const x of records) {
          expect(x.judgedAsOf.time).toBe(x.blockTimestamp);
          expect(x.judgedAsOf.with.tcbUpdate).toBe('early');
          expect(Object.keys(x.judgedAsOf.with.collateral)).toEqual(['tcbInfo', 'qeIdentity', 'pckCrl', 'rootCaCrl']);
        }
        // Today beside each verdict: the platform under the newest archived evaluation (20) is OutOfDate,
        // so the update valid at its time (19) is not accepted today; the outcome stays the verdict at its time.
        const today = (x: any) => { const { collateral, ...rest } = x.judgedAsOf.today; return [rest, collateral.map((c: any) => c.tcbEvaluation)]; };
        expect(records.map(today)).toEqual([
          [{ accepted: false, rejectedBy: 'TYPEA_TCB_STATUS_REJECTED', tcbEvaluation: 20, tcbStatus: 'OutOfDate', advisoryIds: ['INTEL-SA-00615'], sinceEvaluation: 20, changed: true }, [20]],
          [{ accepted: false, rejectedBy: 'TYPEA_TCB_STATUS_REJECTED', tcbEvaluation: 20, tcbStatus: 'OutOfDate', advisoryIds: ['INTEL-SA-00615'], sinceEvaluation: 20, changed: false }, []],
        ]);
        expect(r.stderr).toMatch(/judged at their block's time 2, with today's status beside 2: valid then, not valid now 1$/m);
        // What each verdict was reached on: the same report and userData in both blocks, one policy, this verifier.
        const [a, b] = records.map((x: any) => x.evidence);
        expect(a).toEqual(b);
        expect(a.report).toBe(createHash('sha256').update(parseChunkedStruct(u.report, REPORT_CHUNKS, 'report')).digest('hex'));
        expect(a.verifier).toBe(`${pkg.name}/${pkg.version}`);
        expect(a.policy).toMatch(/^[0-9a-f]{64}$/);
        // The transactions route carries no timestamps: the header of each block holding an update is read, and only those.
        const headers = node.requests.filter((q) => /\/block\/\d+\/header/.test(q.path)).map((q) => q.path.replace(/^.*\/block\//, ''));
        expect(headers.sort()).toEqual(route === 'transactions' ? ['10/header', '11/header'] : []);
        outputs.push(readFileSync(out, 'utf8'));
      } finally {
        await node.close();
      }
    }
    // Same records from either route and either place of verification.
    expect(outputs[1]).toBe(outputs[0]);
  }, 180_000);

  it('the server with collateralArchive: the watcher and the lookup by transaction id judge each update at its block\'s timestamp, through the pool', async () => {
    const u = mintedUpdates(env).sgx('42.00000003');
    const chain = new LedgerChain(10, 12);
    const early = chain.add(10, [t.setDataSgx('official_oracle.aleo', u.userData, u.report)]);
    const late = chain.add(11, [t.setDataSgx('official_oracle.aleo', u.userData, u.report)]);
    chain.setTimestamp(10, Math.floor((T0 - 100 * DAY) / 1000));
    chain.setTimestamp(11, Math.floor(T0 / 1000));
    const node = await startLedgerNode();
    chain.install(node, { transactionsRoute: true });
    const logs = new EventEmitter();
    const seen: { msg: string; obj: any }[] = [];
    const log = (obj: object | string, msg?: string) => {
      const l = typeof obj === 'string' ? { msg: obj, obj: {} } : { msg: msg ?? '', obj };
      seen.push(l);
      logs.emit('line', l);
    };
    const storedTo12 = new Promise<void>((done) => {
      const hit = (l: { msg: string; obj: any }) => l.msg === 'ledger range stored' && l.obj.scannedHeight === 12;
      if (seen.some(hit)) return done();
      logs.on('line', (l) => hit(l) && done());
    });
    const config = resolveConfig(
      {
        ...env.config,
        port: 0,
        host: '127.0.0.1',
        workers: 1,
        // Only the test PKI's root is checked at this time at start; the updates are judged at their blocks' times.
        verificationTime: new Date(T0).toISOString(),
        collateralArchive: archiveA,
        tcbUpdatePolicy: 'early',
        liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 2000 },
        watch: { enabled: true, fromHeight: 10, pollIntervalMs: 100, database: join(dir, 'history-watch.sqlite'), batchBlocks: 5, rps: 200 },
      },
      dir,
    );
    const { app } = await bootstrap(config, { info: log, warn: log }, { logger: false });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      await storedTo12;
      const list = await app.inject({ method: 'GET', url: '/ledger/updates?limit=10' });
      expect(list.statusCode, list.body).toBe(200);
      const updates = (JSON.parse(list.body).updates as any[]).sort((a, b) => a.blockHeight - b.blockHeight);
      const shape = (x: any) => [x.blockHeight, x.blockTimestamp, x.outcome, x.judgedAsOf?.time, x.judgedAsOf?.with?.tcbEvaluation, x.judgedAsOf?.with?.tcbUpdate, Object.keys(x.judgedAsOf?.with?.collateral ?? {})];
      const keys = ['tcbInfo', 'qeIdentity', 'pckCrl', 'rootCaCrl'];
      const t10 = new Date(Math.floor((T0 - 100 * DAY) / 1000) * 1000).toISOString();
      const t11 = new Date(Math.floor(T0 / 1000) * 1000).toISOString();
      expect(updates.map(shape)).toEqual([
        [10, t10, 'valid', t10, 19, 'early', keys],
        [11, t11, 'invalid', t11, 20, 'early', keys],
      ]);
      // Today beside each stored verdict, and what each was reached on, through the route's schema.
      expect(updates.map((x) => [x.judgedAsOf.today.accepted, x.judgedAsOf.today.tcbEvaluation, x.judgedAsOf.today.tcbStatus, x.judgedAsOf.today.changed, x.judgedAsOf.today.sinceEvaluation])).toEqual([
        [false, 20, 'OutOfDate', true, 20],
        [false, 20, 'OutOfDate', false, 20],
      ]);
      expect(updates[0].evidence).toEqual(updates[1].evidence);
      expect(Object.keys(updates[0].evidence)).toEqual(['report', 'userData', 'policy', 'verifier']);
      // The lookup by transaction id reads the block's header for its time.
      for (const [tx, evaluation, outcome] of [[early, 19, 'valid'], [late, 20, 'invalid']] as const) {
        const r = await app.inject({ method: 'GET', url: `/ledger/transactions/${tx.transactionId}` });
        expect(r.statusCode, r.body).toBe(200);
        const rec = JSON.parse(r.body).updates[0];
        expect([rec.outcome, rec.judgedAsOf.with.tcbEvaluation]).toEqual([outcome, evaluation]);
      }
    } finally {
      await app.close();
      await node.close();
    }
  }, 180_000);

  it('without an archive, a report asked as of a past time is unverifiable with TYPEA_TCB_EVALUATION_UNAVAILABLE, through the pool as in process', async () => {
    const u = mintedUpdates(env).sgx('42.00000004');
    for (const workers of [1, 0]) {
      const config = resolveConfig({ ...env.config, port: 0, host: '127.0.0.1', liveCheck: { skip: true }, workers, verificationTime: new Date(T0).toISOString() }, dir);
      const c = composeVerifier(config, { targets: configuredTargets(config)! });
      try {
        const out = await c.service.decodeReport(u.userData, u.report, { asOf: T0 - 100 * DAY });
        expect([workers, out.reportValid, out.error?.code]).toEqual([workers, false, 'TYPEA_TCB_EVALUATION_UNAVAILABLE']);
        expect(out.error?.message).toContain('needs the TCB evaluation then in force, from a collateral archive, and none is configured');
        expect(outcomeFor(false, out.error!.code)).toBe('unverifiable');
      } finally {
        await c.close();
      }
    }
  }, 120_000);

  it('a time after the list can tell is unavailable (a later evaluation may have been in force)', async () => {
    const r = await verifyAt(T0 + 10 * DAY, archiveA);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/TYPEA_TCB_EVALUATION_UNAVAILABLE: .*the newest signed list at hand was issued/);
  }, 120_000);
});
