/**
 * The labels of verifier_ledger_unrecognized_total come from a closed set (issue 32, item 5): a
 * ledger carrying oracle-shaped calls from sixty freshly deployed program names (half of them with
 * fresh function names too) is followed by the real server's watcher; /metrics then holds no more
 * series than the registry's names plus `other` allow, while the store and GET /ledger/updates keep
 * every program's and function's name in full, and GET /ledger/status counts them from the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { startServer, type RunningServer } from '../support/server.js';
import { until } from '../support/wait.js';

const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const targets = readVectorJson<any>('production-targets.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const nitro = examples.nitro.request as { userData: string; report: string };
const FRESH = 60;
const LATEST = 40;

let dir: string;
let node: LedgerNode;
let srv: RunningServer;
const names: { program: string; function: string }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-labels-'));
  const chain = new LedgerChain(10, LATEST);
  for (let i = 0; i < FRESH; i++) {
    const shaped = t.setDataNitro(`fresh_${i}_oracle.aleo`, nitro.userData, nitro.report);
    const spec = i % 2 === 0 ? shaped : { ...shaped, function: `push_${i}` };
    names.push({ program: spec.program, function: spec.function });
    chain.add(11 + (i % 25), [spec]);
  }
  node = await startLedgerNode();
  chain.install(node);
  srv = await startServer({
    uniqueIdTarget: targets.uniqueIdTarget,
    pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2],
    liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 30_000 },
    watch: { enabled: true, database: join(dir, 'ledger.db'), fromHeight: 10, pollIntervalMs: 100, batchBlocks: 10, rps: 1000 },
  });
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('unrecognized writes from fresh program names', { timeout: 300_000 }, () => {
  it('are counted under a bounded label set, and stored with their names in full', async () => {
    await until('the watcher at the tip', async () => ((await (await fetch(`${srv.url}/ledger/status`)).json()) as { scannedHeight: number }).scannedHeight === LATEST, 120_000);
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    const series = metrics.split('\n').filter((l) => l.startsWith('verifier_ledger_unrecognized_total{'));
    expect(series.sort()).toEqual(['verifier_ledger_unrecognized_total{program="other",function="other"} 30', 'verifier_ledger_unrecognized_total{program="other",function="set_data_nitro"} 30']);
    expect(metrics).not.toContain('fresh_');
    const stored: { program: string; function: string; unrecognized?: boolean }[] = [];
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = (await (await fetch(`${srv.url}/ledger/updates?unrecognized=true&limit=50${cursor ? `&cursor=${cursor}` : ''}`)).json()) as { updates: typeof stored; nextCursor?: string };
      stored.push(...page.updates);
      cursor = page.nextCursor;
    }
    expect(stored.map((u) => `${u.program}/${u.function}`).sort()).toEqual(names.map((n) => `${n.program}/${n.function}`).sort());
    // GET /ledger/status counts them from the store (issue 32, item 8), not from a process counter.
    const status = (await (await fetch(`${srv.url}/ledger/status`)).json()) as { unrecognized: number };
    expect(status.unrecognized).toBe(FRESH);
  });
});
