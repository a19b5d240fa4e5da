/**
 * reverify --prove-inclusion [--confirm-with URL] over real HTTP servers serving a chain whose
 * blocks commit to what they hold (test/support/sealed-chain.ts), with minted updates. An honest
 * node: every update proven, confirmed by the node or by a second API. A node that lies, on both
 * routes it serves, in each way it can: without the proof the lie is believed (the first case
 * shows it), with it the update is named by the link that breaks and is never `valid`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import type { PccsServer } from '../support/pccs-server.js';
import { startMintedCliEnv } from '../support/minted-cli.js';
import { makeUserData, reportText } from '../support/ledger-reports.js';
import { sealBlock, sealChain, type SealedChain } from '../support/sealed-chain.js';
import { reverifyCommand } from '../../src/cli/reverify.js';

const PROGRAM = 'official_oracle.aleo';
let dir: string;
let node: LedgerNode;
let second: LedgerNode;
let fork: LedgerNode;
let pccs: PccsServer;
let config: string;
let at: string;
let sealed: SealedChain;
let runs = 0;
let pairB: { userData: string; report: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prove-inclusion-'));
  const env = await startMintedCliEnv(dir, new Uint8Array(32).fill(0x5a));
  ({ pccs, configFile: config, at } = env);
  const chain = new LedgerChain(500, 520);
  const udA = makeUserData({ attestationData: '100.00000001' });
  chain.add(503, [t.setDataNitro(PROGRAM, udA.text, reportText(env.typeB.mintDocument({ userData: udA.hash })))]);
  const udB = makeUserData({ attestationData: '200.00000002' });
  pairB = { userData: udB.text, report: reportText(env.typeB.mintDocument({ userData: udB.hash })) };
  chain.add(507, [t.setDataNitro(PROGRAM, pairB.userData, pairB.report)]);
  chain.add(511, [t.transfer()]);
  sealed = sealChain(chain);
  node = await startLedgerNode();
  sealed.install(node);
  second = await startLedgerNode();
  sealChain(chain).install(second);
  // Another chain: the same blocks on another history (its genesis hash differs), so other hashes.
  fork = await startLedgerNode();
  const forked = sealChain(chain);
  for (let h = 500; h <= 520; h++) forked.lie(h, (b) => Object.assign(b, sealBlock(chain.block(h), BigInt(h)).block));
  forked.install(fork);
});

afterAll(async () => {
  await Promise.all([node?.close(), second?.close(), fork?.close(), pccs?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (let h = 500; h <= 520; h++) sealed.lie(h, () => undefined); // every block served as sealed
});

async function reverify(extra: string[]): Promise<{ code: number; stderr: string; records: any[] }> {
  const out = join(dir, `out-${runs++}.jsonl`);
  let stderr = '';
  const code = await reverifyCommand(
    ['--node', node.url, '--program', 'official_oracle', '--from', '500', '--to', '521', '--config', config, '--at', at, '--workers', '0', '--out', out, '--progress-interval', '0', '--retries', '0', ...extra],
    { stderr: (s) => void (stderr += s), tty: false },
  );
  const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.kind !== 'measurement');
  return { code, stderr, records };
}

const at503 = (records: any[]) => records.find((r) => r.blockHeight === 503);

describe('reverify --prove-inclusion', () => {
  it('an honest node: both updates proven, confirmed by the node itself; the summary says so', async () => {
    const r = await reverify(['--prove-inclusion']);
    expect(r.code).toBe(0);
    expect(r.records).toHaveLength(2);
    for (const rec of r.records) {
      expect(rec).toMatchObject({ outcome: 'valid', inclusion: { status: 'proven', blockHash: sealed.block(rec.blockHeight).block_hash, confirmedBy: `${node.url} (the node read)` } });
    }
    expect(r.stderr).toContain(`inclusion in their blocks: proven 2, failed 0, not checked 0; block hashes confirmed by ${node.url} (the node read)`);
  });

  it('--confirm-with a second API on the same chain: confirmed by it; on another chain: INCLUSION_SOURCES_DISAGREE, unverifiable', async () => {
    const ok = await reverify(['--prove-inclusion', '--confirm-with', second.url]);
    expect(ok.code).toBe(0);
    expect(ok.records.map((x) => x.inclusion.confirmedBy)).toEqual([second.url, second.url]);
    const bad = await reverify(['--prove-inclusion', '--confirm-with', fork.url]);
    expect(bad.code).toBe(2);
    for (const rec of bad.records) expect(rec).toMatchObject({ outcome: 'unverifiable', errorCode: 'INCLUSION_SOURCES_DISAGREE', inclusion: { status: 'failed', link: 'confirmation' } });
  });

  it("a node that swaps an update's values for another genuine pair, ids kept: believed without the proof, INCLUSION_INPUT_ID_MISMATCH with it", async () => {
    sealed.lie(503, (b) => {
      const tr = b.transactions[0].transaction.execution.transitions[0];
      tr.inputs[0].value = pairB.userData;
      tr.inputs[1].value = pairB.report;
    });
    const believed = await reverify([]);
    expect(at503(believed.records)).toMatchObject({ outcome: 'valid', decodedData: { attestationData: '200.00000002' } });
    const proven = await reverify(['--prove-inclusion']);
    expect(proven.code).toBe(1);
    expect(at503(proven.records)).toMatchObject({ outcome: 'invalid', reportValid: false, errorCode: 'INCLUSION_INPUT_ID_MISMATCH', inclusion: { status: 'failed', link: 'input id' } });
    expect(proven.records.find((r) => r.blockHeight === 507)).toMatchObject({ outcome: 'valid', inclusion: { status: 'proven' } });
  });

  const lies: [string, (b: any) => void, string, string][] = [
    ['a changed input id (the transition then commits to another)', (b) => (b.transactions[0].transaction.execution.transitions[0].inputs[0].id = '1field'), 'INCLUSION_INPUT_ID_MISMATCH', 'invalid'],
    ['a changed transition id', (b) => (b.transactions[0].transaction.execution.transitions[0].id = sealed.block(507).transactions[0].transaction.execution.transitions[0].id), 'INCLUSION_TRANSITION_ID_MISMATCH', 'invalid'],
    ['a fabricated transaction beside the real ones', (b) => b.transactions.push(sealed.block(507).transactions[0]), 'INCLUSION_TRANSACTIONS_ROOT_MISMATCH', 'invalid'],
    ['a wrong block hash', (b) => (b.block_hash = sealed.block(507).block_hash), 'INCLUSION_BLOCK_HASH_MISMATCH', 'invalid'],
    ['a missing header', (b) => delete b.header.transactions_root, 'INCLUSION_HEADER_MISSING', 'unverifiable'],
  ];
  for (const [what, lie, code, outcome] of lies) {
    it(`a node that serves ${what}: ${code}, ${outcome}`, async () => {
      sealed.lie(503, lie);
      const r = await reverify(['--prove-inclusion']);
      expect(at503(r.records)).toMatchObject({ outcome, errorCode: code, inclusion: { status: 'failed', code } });
    });
  }

  it('a transaction moved to another block: the block it is served in does not commit to it', async () => {
    const moved = sealed.block(503).transactions[0];
    sealed.lie(503, (b) => (b.transactions = []));
    sealed.lie(509, (b) => b.transactions.push({ ...moved, index: 0 }));
    const r = await reverify(['--prove-inclusion']);
    expect(r.records.find((x) => x.blockHeight === 509)).toMatchObject({ outcome: 'invalid', errorCode: 'INCLUSION_TRANSACTIONS_ROOT_MISMATCH' });
  });

  it('--prove-inclusion without --node, --confirm-with without it: usage errors', async () => {
    await expect(reverifyCommand(['--jsonl', join(dir, 'x.jsonl'), '--prove-inclusion'], { stderr: () => undefined, tty: false })).rejects.toMatchObject({ code: 'CLI_USAGE' });
    await expect(reverifyCommand(['--node', node.url, '--from', '500', '--confirm-with', second.url], { stderr: () => undefined, tty: false })).rejects.toMatchObject({ code: 'CLI_USAGE' });
  });
});
