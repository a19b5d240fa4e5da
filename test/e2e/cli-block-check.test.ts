/**
 * `oracle-verifier block check FILE [--confirm-with URL]` as a user runs it: the real mainnet block
 * matches (exit 0), a changed one does not (exit 1), a file that is no block is a usage error
 * (exit 2); a second API (a real HTTP server here) that serves the same block confirms it, one
 * that serves another chain's hash is named (exit 1), one that is down leaves it undecided (exit 2).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, runMain } from '../support/process.js';
import { jsonAnswer, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const BLOCK = path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json');
const cli = (args: string[]) => runMain(['block', 'check', ...args], { entry: CLI, env: { ...childEnv(), NODE_NO_WARNINGS: '1' } });

let dir: string;
let honest: LedgerNode;
let other: LedgerNode;
const raw = readFileSync(BLOCK, 'utf8');

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'block-check-'));
  honest = await startLedgerNode();
  other = await startLedgerNode();
  honest.addRoute('GET', /^\/block\/1203288$/, () => ({ status: 200, body: raw, headers: { 'content-type': 'application/json' } }));
  const forked = JSON.parse(raw.replace(/"cumulative_weight": ?(\d+)/, '"cumulative_weight": "$1"'));
  forked.block_hash = forked.previous_hash;
  other.addRoute('GET', /^\/block\/1203288$/, () => jsonAnswer(forked));
});
afterAll(async () => {
  await honest.close();
  await other.close();
});

describe('block check', () => {
  it('the real block: every commitment matches, exit 0', async () => {
    const r = await cli([BLOCK]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^block 1203288\n  transactions root  matches: /);
    expect(r.stdout).toMatch(/block hash +matches: stated ab1pc83g2v3f9um0n5hy609pmnug4yx8xzfkdjwkuq4nxsxacsdggrqz2tzkj, computed ab1pc83g2v3f9um0n5hy609pmnug4yx8xzfkdjwkuq4nxsxacsdggrqz2tzkj/);
    expect(r.stdout).toMatch(/every commitment matches\n$/);
  });

  it('a changed timestamp: the block hash does not match, exit 1; --json says which', async () => {
    const file = path.join(dir, 'changed.json');
    writeFileSync(file, raw.replace(/"timestamp": ?1729056561/, '"timestamp":1729056562'));
    expect(readFileSync(file, 'utf8')).not.toBe(raw);
    const r = await cli([file, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.lines.map((l: any) => [l.name, l.matches])).toEqual([['transactions root', true], ['header root', false], ['block hash', false]]);
  });

  it('a file that is no block, or no file: exit 2 with what is wrong', async () => {
    const file = path.join(dir, 'not-a-block.json');
    writeFileSync(file, JSON.stringify({ header: {} }));
    const r = await cli([file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CLI_BAD_INPUT: block check: .*needs "block_hash" and "previous_hash"/);
    const missing = await cli([path.join(dir, 'absent.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/CLI_BAD_INPUT: block check: no such file: .*absent\.json$/m);
  });

  it('--confirm-with a second API that serves the same block: confirmed, exit 0', async () => {
    const r = await cli([BLOCK, '--confirm-with', honest.url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`confirmed by ${honest.url}: the same block hash at height 1203288`);
    expect(honest.requestsTo('/block/1203288')).toHaveLength(1);
  });

  it('--confirm-with a second API on another chain: INCLUSION_SOURCES_DISAGREE, exit 1', async () => {
    const r = await cli([BLOCK, '--confirm-with', other.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/NOT CONFIRMED: INCLUSION_SOURCES_DISAGREE: .* names another hash for block 1203288/);
  });

  it('--confirm-with an API that has no such block: undecided, exit 2', async () => {
    const empty = await startLedgerNode();
    try {
      const r = await cli([BLOCK, '--confirm-with', empty.url]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/LEDGER_NODE_/);
    } finally {
      await empty.close();
    }
  });
});
