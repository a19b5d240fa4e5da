/**
 * An audit re-run offline on another machine reproduces its records byte for byte (issue 49):
 * `reverify --node … --archive A --save-blocks S` reads a ledger node (the transactions route, whose
 * blocks carry no timestamp: the headers of the blocks holding updates are read and kept), then the
 * archive is exported, and a second process, with its own archive imported from the bundle and its
 * own store, runs `reverify --offline --blocks-dir S` with the node and the PCCS both gone. The
 * JSONL is the same bytes, and so are the two stores' records but for the time each was verified.
 */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPcrStruct, formatUniqueId } from '../../src/aleo/ids.js';
import { openUpdateStore } from '../../src/ledger/store/updateStore.js';
import { buildHistoryArchive, DAY } from '../support/history-archive.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { mintedUpdates, MRENCLAVE, OFFICIAL } from '../support/ledger-fixture.js';
import { startLedgerNode } from '../support/ledger-node.js';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { defaultPcrs } from '../support/typeb-pki.js';
import { childEnv, runMain } from '../support/process.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');

type Run = Awaited<ReturnType<typeof runMain>>;

const cli = (args: string[], cwd: string): Promise<Run> => runMain(args, { entry: CLI, cwd, env: { ...childEnv(), NODE_NO_WARNINGS: '1' } });

let dir: string;
let env: MintedCliEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reverify-offline-'));
  env = await startMintedCliEnv(dir, MRENCLAVE);
}, 120_000);

afterAll(async () => {
  await env?.pccs.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reverify --offline on another machine', () => {
  it('reproduces the records of the online audit byte for byte, from the saved blocks and an imported archive, with node and PCCS gone', async () => {
    const T0 = env.typeA.time;
    const u = mintedUpdates(env);
    const chain = new LedgerChain(10, 15);
    chain.add(10, [t.setUniqueId(OFFICIAL, formatUniqueId(MRENCLAVE)), t.setPcrValues(OFFICIAL, formatPcrStruct(defaultPcrs().slice(0, 3)))]);
    chain.add(11, [t.setDataSgx(OFFICIAL, u.sgx('7.1').userData, u.sgx('7.1').report)]);
    chain.add(12, [t.setDataNitro(OFFICIAL, u.nitro('7.2').userData, u.nitro('7.2').report)]);
    chain.add(14, [t.setDataSgx(OFFICIAL, u.sgx('7.3').userData, u.sgx('7.3').report), t.transfer()]);
    for (let h = 10; h <= 15; h++) chain.setTimestamp(h, Math.floor((h === 14 ? T0 : T0 - 100 * DAY) / 1000));
    const node = await startLedgerNode();
    chain.install(node, { transactionsRoute: true });

    // Machine A: the online audit, keeping what it read.
    const a = join(dir, 'machine-a');
    mkdirSync(a);
    const archiveA = buildHistoryArchive(join(a, 'archive'), env.typeA);
    const common = ['--program', 'official_oracle', '--tcb-update', 'early', '--at', new Date(T0).toISOString(), '--progress-interval', '0', '--config', env.configFile];
    let online: Run;
    try {
      online = await cli(['reverify', '--node', node.url, '--from', '10', '--to', '16', '--block-source', 'transactions', '--archive', archiveA, '--save-blocks', 'saved', '--workers', '1', '--store', 'a.sqlite', '--out', 'a.jsonl', ...common], a);
    } finally {
      await node.close();
    }
    expect(online.code, online.stderr).toBe(1); // the update at T0 is invalid (OutOfDate under evaluation 20)
    // Only the blocks holding a followed transition are kept, with their timestamps (read from the headers).
    expect(readdirSync(join(a, 'saved')).sort()).toEqual(['10.json', '11.json', '12.json', '14.json']);
    const saved14 = JSON.parse(readFileSync(join(a, 'saved', '14.json'), 'utf8'));
    expect([saved14.height, saved14.timestamp, saved14.transactions.length]).toEqual([14, Math.floor(T0 / 1000), 1]);
    const bundle = join(a, 'collateral.bundle');
    expect((await cli(['collateral', 'export', '--archive', archiveA, '--out', bundle, '--config', env.configFile], a)).code).toBe(0);

    // Machine B: nothing reachable; the saved blocks, the bundle, its own archive and store.
    await env.pccs.close();
    const b = join(dir, 'machine-b');
    mkdirSync(b);
    const imported = await cli(['collateral', 'import', bundle, '--archive', 'archive', '--config', env.configFile], b);
    expect(imported.code, imported.stderr).toBe(0);
    const offline = await cli(['reverify', '--offline', '--blocks-dir', join(a, 'saved'), '--archive', 'archive', '--workers', '0', '--store', 'b.sqlite', '--out', 'b.jsonl', ...common], b);
    expect(offline.code, offline.stderr).toBe(online.code);

    const recordsA = readFileSync(join(a, 'a.jsonl'), 'utf8');
    expect(readFileSync(join(b, 'b.jsonl'), 'utf8')).toBe(recordsA);
    const records = recordsA.trim().split('\n').map((l) => JSON.parse(l));
    expect(records.filter((r) => r.kind !== 'measurement').map((r) => [r.blockHeight, r.kind, r.outcome, r.judgedAsOf?.with?.tcbEvaluation, r.judgedAsOf?.today?.accepted, typeof r.evidence?.report])).toEqual([
      [11, 'typeA', 'valid', 19, false, 'string'],
      [12, 'typeB', 'valid', undefined, undefined, 'string'],
      [14, 'typeA', 'invalid', 20, false, 'string'],
    ]);
    // Both summaries count the one update valid then and not valid now (typeB is judged at its document's own time).
    for (const r of [online, offline]) expect(r.stderr).toMatch(/judged at their block's time 2, with today's status beside 2: valid then, not valid now 1$/m);

    // The two stores hold the same records, but for when each was verified.
    const rows = (file: string) => {
      const s = openUpdateStore(file);
      try {
        return s.list({}, 100).records.map(({ verifiedAt, ...r }) => (expect(verifiedAt).toMatch(/^\d{4}-/), r));
      } finally {
        s.close();
      }
    };
    const storedA = rows(join(a, 'a.sqlite'));
    expect(storedA).toHaveLength(3);
    expect(rows(join(b, 'b.sqlite'))).toEqual(storedA);
  }, 240_000);

  it('--offline refuses a node or a PCCS, and a saved block without a timestamp cannot be judged at its time', async () => {
    const c = join(dir, 'machine-c');
    mkdirSync(join(c, 'saved'), { recursive: true });
    const r1 = await cli(['reverify', '--offline', '--node', 'http://127.0.0.1:9', '--from', '0', '--config', env.configFile], c);
    expect([r1.code, r1.stderr]).toEqual([2, expect.stringContaining('--offline reads no network')]);
    const r2 = await cli(['reverify', '--offline', '--blocks-dir', 'saved', '--pccs', 'http://127.0.0.1:9', '--config', env.configFile], c);
    expect([r2.code, r2.stderr]).toEqual([2, expect.stringContaining('--offline reads no network')]);
    const u = mintedUpdates(env).sgx('8.1');
    const chain = new LedgerChain(1, 1);
    chain.add(1, [t.setDataSgx(OFFICIAL, u.userData, u.report)]);
    // A block saved without its timestamp (by a run with no archive on the transactions route).
    const tx = chain.transactionsAt(1);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(c, 'saved', '1.json'), JSON.stringify({ height: 1, transactions: tx }));
    const archive = buildHistoryArchive(join(c, 'archive'), env.typeA);
    const r3 = await cli(['reverify', '--offline', '--blocks-dir', 'saved', '--archive', archive, '--program', 'official_oracle', '--workers', '0', '--at', new Date(env.typeA.time).toISOString(), '--config', env.configFile], c);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('block 1 was saved without its timestamp, so it cannot be judged at its time');
  }, 120_000);
});
