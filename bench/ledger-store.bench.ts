/**
 * Cost of the ledger store (issue 16, item 8):
 * 1. backfill into the store: `reverify --tx-dir … --store` against `reverify --jsonl` on the
 *    same updates (2 workers, offline collateral, the real README sgx/nitro updates repeated, each
 *    in its own official_oracle.aleo transaction with its own transition id);
 * 2. RSS while 50,000 update records are stored (ranges of 50, as the watcher commits them);
 * 3. GET /ledger/updates (the real route plugin) over 100,000 rows under autocannon load:
 *    first pages, filters, a height range and deep cursors;
 * 4. the counts at 100,000 rows (each /metrics scrape and GET /ledger/status reads them on the
 *    event loop): the store's summaries against the scan of every row they replace (peer, same file);
 *    a listing whose filter matches nothing against the walk of the order index it replaces.
 * Run: node --expose-gc --import tsx bench/ledger-store.bench.ts [N]   (N updates per kind, default 300)
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { createCliVerifier } from '../src/cli/context.js';
import { runReverify } from '../src/cli/reverify.js';
import { jsonlSource, txDirSource } from '../src/cli/sources.js';
import { listQuery, openUpdateStore, type StoredUpdate } from '../src/ledger/store/updateStore.js';
import { encodeCursor, ledgerRoutes } from '../src/server/routes/ledger.js';
import { fakeId } from '../test/support/ledger-chain.js';
import { AT, offlineUpdates } from './offlineUpdates.js';

const N = Number(process.argv[2] ?? 300);
const WORKERS = 2;
const rss = () => process.memoryUsage().rss / 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

const { dir, config, collateralDir, pairs, jsonl } = await offlineUpdates(N, 'ledger-store-bench-');

// --- 1. backfill into the store vs --jsonl ----------------------------------------------------
const txDir = join(dir, 'txs');
mkdirSync(txDir);
pairs.forEach((p, i) => {
  const tx = {
    status: 'accepted', type: 'execute', index: 0, block_height: 1000 + i,
    transaction: {
      type: 'execute', id: fakeId('at', `bench${i}`),
      execution: { transitions: [{ id: fakeId('au', `bench${i}`), program: 'official_oracle.aleo', function: i % 2 ? 'set_data_nitro' : 'set_data_sgx', inputs: [{ type: 'public', id: '1field', value: p.userData }, { type: 'public', id: '2field', value: p.report }] }] },
    },
  };
  writeFileSync(join(txDir, `${String(i).padStart(6, '0')}.json`), JSON.stringify(tx));
});
const verifier = createCliVerifier({ configPath: config, at: AT, workers: WORKERS, collateralDir });
await Promise.all(pairs.slice(0, 8).map((p) => verifier.verify(p.userData, p.report))); // warm-up
const io = { stderr: () => undefined, tty: false };
const run = async (name: string, source: Parameters<typeof runReverify>[0]['source'], store?: ReturnType<typeof openUpdateStore>) => {
  const t0 = performance.now();
  const code = await runReverify({ source, verifier, maxInFlight: WORKERS * 4, annotateInForce: true, outFile: join(dir, `${name}.jsonl`), resume: false, progressIntervalMs: 0, io, ...(store ? { store } : {}) });
  if (code !== 0) throw new Error(`${name}: exit ${code}`);
  return (performance.now() - t0) / 1000;
};
const reps = 3;
const jsonlSecs: number[] = [];
const storeSecs: number[] = [];
for (let r = 0; r < reps; r++) {
  jsonlSecs.push(await run(`jsonl${r}`, jsonlSource(jsonl)));
  const store = openUpdateStore(join(dir, `backfill${r}.db`));
  storeSecs.push(await run(`store${r}`, txDirSource(txDir, ['official_oracle.aleo']), store));
  if (store.counts().valid !== pairs.length) throw new Error('backfill: not every update stored valid');
  store.close();
}
await verifier.close();
const best = (xs: number[]) => Math.min(...xs);
const total = pairs.length;
console.log(`1. updates ${total} (${N} sgx + ${N} nitro), workers ${WORKERS}, best of ${reps}`);
console.log(`   reverify --jsonl                 ${(total / best(jsonlSecs)).toFixed(0).padStart(5)} updates/s  (runs ${jsonlSecs.map((s) => s.toFixed(2)).join(', ')} s)`);
console.log(`   reverify --tx-dir --store        ${(total / best(storeSecs)).toFixed(0).padStart(5)} updates/s  (runs ${storeSecs.map((s) => s.toFixed(2)).join(', ')} s)`);
console.log(`   store backfill / jsonl: ${((100 * best(jsonlSecs)) / best(storeSecs)).toFixed(0)} %`);

// --- 2. RSS over 50,000 stored updates --------------------------------------------------------
const decodedData = { url: 'api.example.com/price?symbol=BTCUSDC', requestMethod: 'GET', selector: 'price', responseFormat: 'json', requestHeaders: { Accept: '*/*' }, encodingOptions: { value: 'float', precision: 8 }, attestationData: '59408.01000000', responseStatusCode: 200, timestamp: 1725008028 };
const synthetic = (i: number): StoredUpdate => {
  const valid = i % 97 !== 0;
  const typeA = i % 2 === 0;
  return {
    outcome: valid ? 'valid' : 'invalid',
    record: {
      transactionId: fakeId('at', `s${i}`), transitionId: fakeId('au', `s${i}`), blockHeight: 1_000_000 + Math.floor(i / 2),
      program: 'official_oracle.aleo', function: typeA ? 'set_data_sgx' : 'set_data_nitro', reportType: typeA ? 'typeA' : 'typeB', reportValid: valid, outcome: valid ? 'valid' : 'invalid',
      ...(valid ? {} : { errorCode: 'USERDATA_HASH_MISMATCH', errorString: 'the report binds other data' }),
      decodedData, decodedRequests: [decodedData], ...(typeA ? { tcbStatus: 'UpToDate' } : {}),
      measurements: typeA ? { uniqueId: 'ab'.repeat(32) } : { pcrs: ['cd'.repeat(48), 'ef'.repeat(48), '01'.repeat(48)] },
      verifiedAt: new Date(1_780_000_000_000 + i * 1000).toISOString(),
    },
  };
};
const fill = (file: string, n: number, sample?: (stored: number) => void) => {
  const s = openUpdateStore(file);
  for (let i = 0; i < n; i += 50) {
    s.commit(Array.from({ length: Math.min(50, n - i) }, (_, k) => synthetic(i + k)), { start: 1_000_000 + i / 2, end: 1_000_000 + (i + 50) / 2 - 1 });
    if (sample && (i + 50) % 10_000 === 0) sample(i + 50);
  }
  return s;
};
gc?.();
const rssRows: string[] = [`   before: ${rss().toFixed(1)} MiB`];
const t2 = performance.now();
fill(join(dir, 'rss.db'), 50_000, (n) => {
  gc?.();
  rssRows.push(`   after ${n}: ${rss().toFixed(1)} MiB`);
}).close();
console.log(`2. RSS while storing 50,000 updates (${((50_000 / (performance.now() - t2)) * 1000).toFixed(0)} records/s, gc ${gc ? 'forced' : 'not exposed'})`);
console.log(rssRows.join('\n'));

// --- 3. GET /ledger/updates at 100,000 rows -----------------------------------------------------
const big = fill(join(dir, 'big.db'), 100_000);
const app = Fastify();
await app.register(ledgerRoutes({ store: big }));
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;
const mid = synthetic(50_001).record;
const paths = [
  '/ledger/updates?limit=50',
  '/ledger/updates?valid=false&limit=50',
  '/ledger/updates?kind=typeB&limit=50',
  '/ledger/updates?fromHeight=1020000&toHeight=1020100&limit=50',
  `/ledger/updates?limit=50&cursor=${encodeCursor({ blockHeight: mid.blockHeight, transitionId: mid.transitionId })}`,
  `/ledger/updates?valid=true&kind=typeA&limit=50&cursor=${encodeCursor({ blockHeight: 1_000_100, transitionId: 'au1' })}`,
];
for (const p of paths) {
  const r = await fetch(`http://127.0.0.1:${port}${p}`);
  const b = (await r.json()) as { updates: unknown[] };
  if (r.status !== 200 || b.updates.length === 0) throw new Error(`${p}: ${r.status} with ${b.updates?.length} updates`);
}
const r = await autocannon({ url: `http://127.0.0.1:${port}`, connections: 8, duration: 10, requests: paths.map((path) => ({ method: 'GET', path })) } as unknown as autocannon.Options);
console.log(`3. GET /ledger/updates over 100,000 rows, 8 connections, 10 s, ${paths.length} request shapes (limit 50)`);
console.log(`   ${r.requests.average.toFixed(0)} req/s, latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
await app.close();

// --- 4. counts at 100,000 rows: summaries vs the scan ---------------------------------------------
const { default: Database } = await import('better-sqlite3');
const raw = new Database(join(dir, 'big.db'), { readonly: true });
const scan = raw.prepare('SELECT outcome, count(*) AS n FROM updates GROUP BY outcome');
/** Median milliseconds of `n` calls of `f`. */
const medianMs = (f: () => unknown, n = 15) => {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    f();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[n >> 1]!;
};
const scannedCounts = new Map((scan.all() as { outcome: string; n: number }[]).map((r) => [r.outcome, r.n]));
for (const [outcome, n] of Object.entries(big.counts())) if ((scannedCounts.get(outcome) ?? 0) !== n) throw new Error(`4: ${outcome} counted ${n}, the scan finds ${scannedCounts.get(outcome) ?? 0}`);
const summary = medianMs(() => big.counts());
const scanned = medianMs(() => scan.all());
console.log(`4. counts by outcome at 100,000 rows, median of 15: store ${summary.toFixed(3)} ms, scan of every row (peer) ${scanned.toFixed(1)} ms: ${(scanned / summary).toFixed(0)}×`);
// A listing whose filter matches nothing: the store's index for it against the walk of the order
// index it replaces (peer: the same query INDEXED BY updates_order), same file.
const none = listQuery({ outcome: 'unattested' }, 51)!;
if (big.list({ outcome: 'unattested' }, 50).records.length !== 0) throw new Error('4: the synthetic rows hold no unattested update');
const walk = raw.prepare(none.sql.replace(/INDEXED BY \S+/, 'INDEXED BY updates_order'));
const listed = medianMs(() => big.list({ outcome: 'unattested' }, 50));
const walked = medianMs(() => walk.all(...none.args));
console.log(`   a listing that matches nothing (outcome=unattested), median of 15: store ${listed.toFixed(3)} ms, walk of the order index (peer) ${walked.toFixed(1)} ms: ${(walked / listed).toFixed(0)}×`);
raw.close();
big.close();
rmSync(dir, { recursive: true, force: true });
