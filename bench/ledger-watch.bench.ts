/**
 * The ledger watcher's speed (issue 24, item 9): blocks per second from a loopback ledger node
 * (test/support/ledger-node.ts serving a chain of the test fixture: every era's programs, an
 * unrecognized update and an unattested write, plus one typeA update in each of EXTRA further
 * blocks), through the real server (watcher, SQLite store, in-process verification), and the
 * share of that time spent parsing the node's JSON (the same block-range bodies, fetched once more
 * and timed through JSON.parse alone).
 * Run: npx tsx bench/ledger-watch.bench.ts [EXTRA]   (default 200; batches of 50 blocks, as the default watch.batchBlocks)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLedgerFixture } from '../test/support/ledger-fixture.js';
import { startLedgerServer } from '../test/support/ledger-server.js';

const EXTRA = Number(process.argv[2] ?? 200);
const FIRST = 700;
const LATEST = FIRST + 21 + EXTRA;
const BATCH = 50;
const dir = mkdtempSync(join(tmpdir(), 'ledger-watch-bench-'));
const fx = await startLedgerFixture(dir, { first: FIRST, latest: LATEST, extraSgx: EXTRA });
const blocks = LATEST - FIRST + 1;

const t0 = performance.now();
const srv = await startLedgerServer(fx, dir, { watch: { enabled: true, fromHeight: FIRST, pollIntervalMs: 100, database: join(dir, 'watch.db'), batchBlocks: BATCH, rps: 1000 } });
await srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === LATEST);
const watchMs = performance.now() - t0;
const stored = (await srv.get('/ledger/status')).body.updates;
await srv.close();

// The same ranges' bodies: fetched (not timed), then parsed (timed).
const bodies: string[] = [];
for (let s = FIRST; s <= LATEST; s += BATCH) bodies.push(await (await fetch(`${fx.node.url}/blocks?start=${s}&end=${Math.min(LATEST + 1, s + BATCH)}`)).text());
const p0 = performance.now();
for (const b of bodies) JSON.parse(b);
const parseMs = performance.now() - p0;
await fx.close();
rmSync(dir, { recursive: true, force: true });

const bytes = bodies.reduce((n, b) => n + b.length, 0);
console.log(`node ${process.version}; ${blocks} blocks (${(bytes / 2 ** 20).toFixed(1)} MiB of JSON), stored ${JSON.stringify(stored)}`);
console.log(`watcher, first block to tip stored: ${watchMs.toFixed(0)} ms = ${((blocks / watchMs) * 1000).toFixed(1)} blocks/s (server start included)`);
console.log(`JSON.parse of the same bodies: ${parseMs.toFixed(1)} ms = ${((parseMs / watchMs) * 100).toFixed(2)} % of the watcher's time`);
