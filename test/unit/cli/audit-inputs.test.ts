/**
 * The two CLI pieces the Kubernetes audit leans on: `reverify --to-file` (one end height for every
 * shard: the first to arrive reads the tip and publishes it, everyone else reads it) and
 * `merge --shards N` (an input holding {i} stands for N files).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pinnedEnd } from '../../../src/cli/pinnedEnd.js';
import { mergeCommand } from '../../../src/cli/merge.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reverify --to-file (pinnedEnd)', () => {
  it('racing shards agree on the first tip read; later runs read it without asking the node', async () => {
    const file = join(dir, 'end');
    let asked = 0;
    // Four "pods" start at once; the node's tip moves between their reads.
    const ends = await Promise.all([1000, 1001, 1002, 1003].map((tip) => pinnedEnd(file, async () => (asked++, tip))));
    expect(new Set(ends).size).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(`${ends[0]}\n`);
    const before = asked;
    expect(await pinnedEnd(file, async () => (asked++, 5000))).toBe(ends[0]);
    expect(asked).toBe(before);
  });

  it('a file that is not a height is an error, not a guess', async () => {
    const file = join(dir, 'bad');
    writeFileSync(file, 'latest\n');
    await expect(pinnedEnd(file, async () => 1)).rejects.toThrow(/expected a block height/);
  });
});

describe('merge --shards N', () => {
  const rec = (h: number) => `${JSON.stringify({ id: `u${h}`, kind: 'typeB', transactionId: `at${h}`, transitionId: `au${h}`, blockHeight: h, reportValid: true, outcome: 'valid', measurements: {} })}\n`;
  it('expands {i} to the N shard files and merges them in ledger order', async () => {
    writeFileSync(join(dir, 'shard-0.jsonl'), rec(10) + rec(30));
    writeFileSync(join(dir, 'shard-1.jsonl'), rec(20));
    writeFileSync(join(dir, 'shard-2.jsonl'), rec(5));
    let err = '';
    const code = await mergeCommand([join(dir, 'all.jsonl'), join(dir, 'shard-{i}.jsonl'), '--shards', '3'], { stderr: (s) => void (err += s) });
    expect(code, err).toBe(0);
    const heights = readFileSync(join(dir, 'all.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).blockHeight);
    expect(heights).toEqual([5, 10, 20, 30]);
    // A missing shard (N too large) is an error, not a silent partial merge.
    await expect(mergeCommand([join(dir, 'all4.jsonl'), join(dir, 'shard-{i}.jsonl'), '--shards', '4'], { stderr: () => undefined })).rejects.toThrow(/shard-3\.jsonl/);
  });

  it('{i} without --shards, and --shards without {i}, are usage errors', async () => {
    await expect(mergeCommand([join(dir, 'x.jsonl'), join(dir, 'shard-{i}.jsonl')], { stderr: () => undefined })).rejects.toThrow(/needs --shards N/);
    await expect(mergeCommand([join(dir, 'x.jsonl'), join(dir, 'shard-0.jsonl'), '--shards', '2'], { stderr: () => undefined })).rejects.toThrow(/none does/);
  });

  it('--checkpoints: merges only when every shard i/N of one scan is done and wrote its IN', async () => {
    const out = (i: number) => join(dir, `c-shard-${i}.jsonl`);
    const ckpt = (i: number) => join(dir, `c-shard-${i}.ckpt`);
    const scan = { kind: 'blocks', node: 'http://node/v1/mainnet', programs: ['official_oracle.aleo'], from: 0, to: 300, batchSize: 50 };
    const write = (i: number, over: Record<string, unknown> = {}, source: Record<string, unknown> = {}) =>
      writeFileSync(ckpt(i), JSON.stringify({ format: 'oracle-verifier-checkpoint/1', source: { ...scan, shard: `${i}/3`, ...source }, output: out(i), cursor: 300, outputOffset: 0, done: true, ...over }));
    for (let i = 0; i < 3; i++) {
      writeFileSync(out(i), rec(10 + i));
      write(i);
    }
    const args = [join(dir, 'c-all.jsonl'), join(dir, 'c-shard-{i}.jsonl'), '--shards', '3', '--checkpoints', join(dir, 'c-shard-{i}.ckpt')];
    let err = '';
    expect(await mergeCommand(args, { stderr: (s) => void (err += s) })).toBe(0);
    expect(err).toContain('shards: 3 of one scan of [0, 300) of http://node/v1/mainnet, each complete');
    // A shard still under way, a shard of another range, a missing checkpoint: refused, named.
    write(1, { done: false, cursor: 150 });
    await expect(mergeCommand(args, { stderr: () => undefined })).rejects.toThrow(/shard 1\/3 is not done \(its checkpoint is at height 150/);
    write(1);
    write(2, {}, { to: 250 });
    await expect(mergeCommand(args, { stderr: () => undefined })).rejects.toThrow(/shard 2\/3 scanned .*"to":250/);
    rmSync(ckpt(2));
    await expect(mergeCommand(args, { stderr: () => undefined })).rejects.toThrow(/shard 2\/3: no readable checkpoint/);
    write(2, { output: out(0) });
    await expect(mergeCommand(args, { stderr: () => undefined })).rejects.toThrow(/not the IN of shard 2/);
  });
});
