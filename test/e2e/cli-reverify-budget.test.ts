/**
 * `reverify --node --requests-per-day` as a real process against the ledger-node simulator, the
 * requests counted where they arrive: a run killed with SIGKILL in the middle of its day and
 * resumed from its checkpoint never sends more than the day's budget in all (failed and
 * rate-limited attempts included), and stops (exit 2, the time to resume) when it is spent
 * (--stop-when-budget-spent). The budget's day is made very long for that test (the test-only
 * ORACLE_VERIFIER_TEST_DAY_MS), so that no day boundary falls inside it; with short days, a run
 * waits for each next day and finishes. The wait itself is tested with an injected clock in
 * test/unit/cli/plan.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
/** Days of ≈ 31.7 years (boundaries in 2001 and 2033): the whole test is inside one. */
const LONG_DAY_MS = String(1e12);

function cli(args: string[], onStart?: (c: ChildProcess) => void, dayMs = LONG_DAY_MS): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, NODE_NO_WARNINGS: '1', ORACLE_VERIFIER_TEST_DAY_MS: dayMs } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`CLI did not exit within 150 s\n${stderr}`));
    }, 150_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stderr });
    });
    onStart?.(child);
  });
}

let dir: string;
let node: LedgerNode;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-budget-'));
  node = await startLedgerNode();
  config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ uniqueIdTarget: MRENCLAVE, pcrValuesTarget: ['11'.repeat(48), '22'.repeat(48), '33'.repeat(48)] }));
  const chain = new LedgerChain(3000, 3999);
  for (let h = 3000; h < 4000; h += 37) chain.add(h, [t.transfer()]);
  chain.install(node);
});

afterAll(async () => {
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('reverify --requests-per-day', () => {
  it('a budget is never exceeded across a kill -9 and --resume; a spent budget stops the run with its code and the time to resume', async () => {
    const BUDGET = 40;
    const out = join(dir, 'scan.jsonl');
    const ckpt = join(dir, 'scan.ckpt');
    // 100 batches of 10 blocks: far more than the day's 40 requests.
    const args = ['reverify', '--node', node.url, '--from', '3000', '--to', '4000', '--batch', '10', '--rps', '50', '--concurrency', '2', '--requests-per-day', String(BUDGET),
      '--retries', '5', '--backoff-ms', '1', '--config', config, '--workers', '0', '--out', out, '--checkpoint', ckpt, '--progress-interval', '0'];
    node.reset();
    // Failed and rate-limited attempts are requests too: the first three answers.
    node.script('/blocks', [reply.serverError(), reply.tooManyRequests('0'), reply.v1RateLimit(0)]);
    let killedAfter = -1;
    const first = await cli(args, (child) => {
      // Killed as its 15th request arrives (before the node answers it).
      const off = node.onRequest(() => {
        if (node.requests.length === 15 && killedAfter < 0) {
          killedAfter = node.requests.length;
          child.kill('SIGKILL');
          off();
        }
      });
    });
    expect(first.code, first.stderr).toBeNull(); // killed
    expect(killedAfter).toBe(15);
    // The block source detected (its probe is a request of the budget too), then the plan.
    expect(first.stderr).toMatch(/^block source: \/blocks \(detected/m);
    expect(first.stderr).toMatch(/^plan: 1,000 blocks from \/blocks \(10 blocks a request\) = 100 requests; under 50 requests\/s and 40 requests\/day \(1 spent today\): ≈ .* over 3 days/m);
    // The checkpoint counts at least what reached the node (a request is saved before it is sent).
    const saved = JSON.parse(readFileSync(ckpt, 'utf8'));
    const [day, counted] = Object.entries(saved.requests.days)[0] as [string, number];
    expect(Object.keys(saved.requests.days)).toHaveLength(1);
    expect(counted).toBeGreaterThanOrEqual(node.requests.length);
    expect(counted).toBeLessThanOrEqual(BUDGET);

    // Resumed: it continues the day's count, spends the rest of the budget and stops.
    const second = await cli([...args, '--resume', '--stop-when-budget-spent']);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/resuming at height \d+/);
    // The day's saved count, plus this run's probe of the block source.
    expect(second.stderr).toMatch(new RegExp(`\\(${counted + 1} spent today\\)`));
    expect(second.stderr).toContain(`reverify stopped: request budget spent: ${BUDGET} of ${BUDGET} requests on the day from ${day} (UTC); continue with --resume from `);
    // At the node: never more than the day's budget, over both runs and every attempt.
    expect(node.requests.length).toBeLessThanOrEqual(BUDGET);
    expect(node.requests.length).toBeGreaterThan(killedAfter);
    const after = JSON.parse(readFileSync(ckpt, 'utf8'));
    expect(after.requests.days[day]).toBe(BUDGET);
    expect(after.done).toBe(false);

    // Resumed again the same day: not one request.
    const before = node.requests.length;
    const third = await cli([...args, '--resume', '--stop-when-budget-spent']);
    expect(third.code, third.stderr).toBe(2);
    expect(third.stderr).toMatch(/request budget spent: 40 of 40 requests/);
    expect(node.requests.length).toBe(before);
    expect(existsSync(out)).toBe(true);
  }, 300_000);

  it('with short (test) days, a run waits for each next day, saying so, and finishes within the budget of each day', async () => {
    const DAY_MS = 1500;
    const out = join(dir, 'days.jsonl');
    const ckpt = join(dir, 'days.ckpt');
    node.reset();
    const r = await cli(['reverify', '--node', node.url, '--from', '3000', '--to', '3300', '--batch', '10', '--rps', '100', '--concurrency', '2', '--requests-per-day', '8',
      '--config', config, '--workers', '0', '--out', out, '--checkpoint', ckpt, '--progress-interval', '0'], undefined, String(DAY_MS));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/request budget spent: 8 of 8 requests on the day from \S+ \(UTC\); waiting until \S+/);
    expect(node.requestsTo('/blocks')).toHaveLength(30);
    // Each day's count in the checkpoint is within the budget; the requests span enough days.
    const c = JSON.parse(readFileSync(ckpt, 'utf8'));
    expect(c.done).toBe(true);
    for (const n of Object.values(c.requests.days) as number[]) expect(n).toBeLessThanOrEqual(8);
    const days = node.requests.map((q) => Math.floor(q.at / DAY_MS));
    expect(node.requests.length).toBeLessThanOrEqual(8 * (Math.max(...days) - Math.min(...days) + 1));
  }, 300_000);

  it('Ctrl-C during the wait for the next day stops the run at once, the count kept for --resume', async () => {
    const out = join(dir, 'int.jsonl');
    const ckpt = join(dir, 'int.ckpt');
    node.reset();
    let said = '';
    const r = await cli(['reverify', '--node', node.url, '--from', '3000', '--to', '3100', '--batch', '10', '--rps', '100', '--concurrency', '1', '--requests-per-day', '3',
      '--config', config, '--workers', '0', '--out', out, '--checkpoint', ckpt, '--progress-interval', '0'], (child) => {
      // SIGINT once the run says it waits (a day of ≈ 31.7 years here).
      let sent = false;
      child.stderr!.on('data', (d) => {
        said += d;
        if (!sent && /waiting until/.test(said)) {
          sent = true; // once: a second SIGINT quits at once
          child.kill('SIGINT');
        }
      });
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/stopped while waiting for the next day's request budget/);
    expect(node.requests.length).toBe(3);
    expect(Object.values(JSON.parse(readFileSync(ckpt, 'utf8')).requests.days)).toEqual([3]);
  }, 300_000);
});
