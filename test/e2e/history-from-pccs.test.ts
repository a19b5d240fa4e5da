/**
 * Judging history at its own time with no archive prepared by hand (issue 49): the collateral
 * archive starts empty, and the verifier asks the PCCS (a real server process on a socket, Intel
 * PCS v4 routes) for what it lacks: the signed list of evaluation numbers, the TCB info and QE
 * identity of the evaluation in force at each block's time (`tcbEvaluationDataNumber=N`) and of
 * the newer ones (today's rating), and the CRLs, archiving each as it goes. An evaluation the
 * PCCS no longer serves (410) leaves the update unverifiable, naming it; a PCCS that does not
 * answer leaves it unverifiable and retryable, never judged by another evaluation. The server's
 * watcher archives as it goes too.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollateralArchive } from '../../src/collateral/archive.js';
import { bundleFromCollateral } from '../support/pccs-server.js';
import { DAY, historyEvaluations } from '../support/history-archive.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { mintedUpdates, MRENCLAVE, OFFICIAL } from '../support/ledger-fixture.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { startLedgerServer } from '../support/ledger-server.js';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { childEnv, runMain } from '../support/process.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');

const cli = (args: string[]) => runMain(args, { entry: CLI, env: { ...childEnv(), NODE_NO_WARNINGS: '1' } });

let dir: string;
let env: MintedCliEnv;
let node: LedgerNode;
let T0: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'history-pccs-'));
  env = await startMintedCliEnv(dir, MRENCLAVE);
  T0 = env.typeA.time;
  const u = mintedUpdates(env).sgx('9.1');
  // The same update in a block at T0 − 100 days (evaluation 19 in force) and one at T0 (20).
  const chain = new LedgerChain(10, 12);
  chain.add(10, [t.setDataSgx(OFFICIAL, u.userData, u.report)]);
  chain.add(11, [t.setDataSgx(OFFICIAL, u.userData, u.report)]);
  chain.setTimestamp(10, Math.floor((T0 - 100 * DAY) / 1000));
  chain.setTimestamp(11, Math.floor(T0 / 1000));
  chain.setTimestamp(12, Math.floor(T0 / 1000) + 3);
  node = await startLedgerNode();
  chain.install(node, { transactionsRoute: true });
}, 120_000);

afterAll(async () => {
  await node?.close();
  await env?.pccs.close();
  rmSync(dir, { recursive: true, force: true });
});

const reverify = (archive: string, out: string, more: string[] = []) =>
  cli(['reverify', '--node', node.url, '--program', 'official_oracle', '--from', '10', '--to', '13', '--archive', archive, '--tcb-update', 'early', '--workers', '1', '--at', new Date(T0).toISOString(), '--out', out, '--progress-interval', '0', '--config', env.configFile, ...more]);

const records = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('an empty archive filled from the PCCS as it goes', () => {
  it('judges each update under the evaluation in force at its block, archives what it fetched, and the archive alone then reproduces the records offline', async () => {
    env.pccs.setBundle({ ...bundleFromCollateral(env.typeA.collateral), evaluations: historyEvaluations(env.typeA) });
    const archive = join(dir, 'auto-archive');
    expect(existsSync(archive)).toBe(false);
    const from = env.pccs.requests.length;
    const out = join(dir, 'auto.jsonl');
    const r = await reverify(archive, out, ['--save-blocks', join(dir, 'saved')]);
    expect(r.code, r.stderr).toBe(1);
    const recs = records(out);
    expect(recs.map((x) => [x.blockHeight, x.outcome, x.judgedAsOf.with.tcbEvaluation, x.judgedAsOf.today.tcbEvaluation, x.judgedAsOf.today.accepted])).toEqual([
      [10, 'valid', 19, 20, false],
      [11, 'invalid', 20, 20, false],
    ]);
    // What was asked of the PCCS, by evaluation number (each document once).
    const asked = env.pccs.requests.slice(from).map((l) => l.replace(/^GET \/sgx\/certification\/v4\//, ''));
    for (const q of ['tcbevaluationdatanumbers', 'tcb?fmspc=00906ed50000&tcbEvaluationDataNumber=19', 'tcb?fmspc=00906ed50000&tcbEvaluationDataNumber=20', 'qe/identity?tcbEvaluationDataNumber=19', 'qe/identity?tcbEvaluationDataNumber=20']) {
      expect(asked.filter((a) => a === q), q).toHaveLength(1);
    }
    // The archive now holds them, each verified to the pinned root (opened again, every document is checked).
    const a = CollateralArchive.open(archive, env.typeA.root.cert);
    expect(a.all().map((d) => [d.document.kind, d.evaluation ?? null]).sort()).toEqual(
      [['pckCrl', null], ['qeIdentity', 19], ['qeIdentity', 20], ['rootCaCrl', null], ['tcbEvaluations', null], ['tcbInfo', 19], ['tcbInfo', 20]].sort(),
    );
    // With the PCCS unreachable, the archive and the saved blocks give the same records.
    const offline = await cli(['reverify', '--offline', '--blocks-dir', join(dir, 'saved'), '--archive', archive, '--tcb-update', 'early', '--program', 'official_oracle', '--workers', '0', '--at', new Date(T0).toISOString(), '--out', join(dir, 'auto-offline.jsonl'), '--progress-interval', '0', '--config', env.configFile]);
    expect(offline.code, offline.stderr).toBe(1);
    expect(readFileSync(join(dir, 'auto-offline.jsonl'), 'utf8')).toBe(readFileSync(out, 'utf8'));
  }, 180_000);

  it('an evaluation the PCCS no longer serves (410) leaves the update unverifiable, naming it; never judged by another', async () => {
    env.pccs.setBundle({ ...bundleFromCollateral(env.typeA.collateral), evaluations: historyEvaluations(env.typeA, { gone: [19] }) });
    const out = join(dir, 'gone.jsonl');
    const r = await reverify(join(dir, 'gone-archive'), out);
    expect(r.code).toBe(2);
    const [then, now] = records(out);
    expect([then.outcome, then.errorCode]).toEqual(['unverifiable', 'TYPEA_TCB_EVALUATION_UNAVAILABLE']);
    expect(then.errorString).toMatch(/evaluation 19 was in force for FMSPC 00906ED50000 at \S+ \(update=early\), and the archive has no TCB info of evaluation 19 for FMSPC 00906ED50000; the PCCS did not give it \(PCCS_NOT_FOUND: PCCS tcb: no longer available \(410\)/);
    expect(then.judgedAsOf.with).toBeUndefined();
    expect([now.outcome, now.judgedAsOf.with.tcbEvaluation]).toEqual(['invalid', 20]);
  }, 180_000);

  it('a PCCS that does not answer leaves the update unverifiable and retryable (its own code), not unavailable', async () => {
    env.pccs.setBundle({ ...bundleFromCollateral(env.typeA.collateral), evaluations: historyEvaluations(env.typeA) });
    env.pccs.inject('tcbevaluationdatanumbers', ...Array.from({ length: 20 }, () => ({ status: 503 })));
    const out = join(dir, 'down.jsonl');
    const r = await reverify(join(dir, 'down-archive'), out);
    env.pccs.clearInjected();
    expect(r.code).toBe(2);
    expect(records(out).map((x) => [x.outcome, x.errorCode])).toEqual([
      ['unverifiable', 'PCCS_UNAVAILABLE'],
      ['unverifiable', 'PCCS_UNAVAILABLE'],
    ]);
  }, 180_000);
});

describe('the server with collateralArchive and a PCCS', () => {
  it("its watcher judges at the blocks' times from an empty archive, archiving as it goes", async () => {
    env.pccs.setBundle({ ...bundleFromCollateral(env.typeA.collateral), evaluations: historyEvaluations(env.typeA) });
    const archive = join(dir, 'server-archive');
    const fx = { env: { ...env, config: env.config }, node } as never;
    const srv = await startLedgerServer(fx, dir, {
      workers: 1,
      verificationTime: new Date(T0).toISOString(),
      collateralArchive: archive,
      tcbUpdatePolicy: 'early',
      watch: { enabled: true, fromHeight: 10, pollIntervalMs: 100, database: join(dir, 'server.sqlite'), batchBlocks: 5, rps: 200 },
    });
    try {
      await srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === 12);
      const updates = ((await srv.get('/ledger/updates?limit=10')).body.updates as any[]).sort((a, b) => a.blockHeight - b.blockHeight);
      expect(updates.map((x) => [x.blockHeight, x.outcome, x.judgedAsOf.with.tcbEvaluation, x.judgedAsOf.today.accepted])).toEqual([
        [10, 'valid', 19, false],
        [11, 'invalid', 20, false],
      ]);
      expect(srv.lines.filter((l) => l.msg === 'collateral archived').length).toBeGreaterThanOrEqual(7);
      expect(readdirSync(archive).sort()).toEqual(['archive.json', 'pckCrl', 'qeIdentity', 'rootCaCrl', 'tcbEvaluations', 'tcbInfo']);
    } finally {
      await srv.close();
    }
  }, 180_000);

  it('an update stored unverifiable while the PCCS did not answer is retried at its block\'s time once it answers', async () => {
    env.pccs.setBundle({ ...bundleFromCollateral(env.typeA.collateral), evaluations: historyEvaluations(env.typeA) });
    env.pccs.inject('tcbevaluationdatanumbers', ...Array.from({ length: 1000 }, () => ({ status: 503 })));
    const fx = { env: { ...env, config: env.config }, node } as never;
    const srv = await startLedgerServer(fx, dir, {
      workers: 1,
      verificationTime: new Date(T0).toISOString(),
      collateralArchive: join(dir, 'retry-archive'),
      tcbUpdatePolicy: 'early',
      watch: { enabled: true, fromHeight: 10, pollIntervalMs: 100, database: join(dir, 'retry.sqlite'), batchBlocks: 5, rps: 200, retryIntervalMs: 100 },
    });
    try {
      await srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === 12);
      const during = ((await srv.get('/ledger/updates?limit=10')).body.updates as any[]).map((x) => [x.outcome, x.errorCode]);
      expect(during).toEqual([
        ['unverifiable', 'PCCS_UNAVAILABLE'],
        ['unverifiable', 'PCCS_UNAVAILABLE'],
      ]);
      env.pccs.clearInjected();
      const done = new Map<number, string>();
      await srv.waitFor((l) => {
        if (l.msg === 'ledger update re-verified' && l.obj.outcome !== 'unverifiable') done.set(l.obj.blockHeight, l.obj.outcome);
        return done.size === 2;
      });
      expect([...done.entries()].sort()).toEqual([
        [10, 'valid'],
        [11, 'invalid'],
      ]);
      const after = ((await srv.get('/ledger/updates?limit=10')).body.updates as any[]).sort((a, b) => a.blockHeight - b.blockHeight);
      expect(after.map((x) => [x.blockHeight, x.outcome, x.judgedAsOf.time, x.judgedAsOf.with.tcbEvaluation])).toEqual([
        [10, 'valid', new Date(Math.floor((T0 - 100 * DAY) / 1000) * 1000).toISOString(), 19],
        [11, 'invalid', new Date(Math.floor(T0 / 1000) * 1000).toISOString(), 20],
      ]);
    } finally {
      env.pccs.clearInjected();
      await srv.close();
    }
  }, 180_000);
});
