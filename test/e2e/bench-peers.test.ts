/**
 * The peers of bench/http-load.ts price the service's layers only if each does the work it claims:
 * the frameworkless peer answers POST /decodeReport with the same body as the service for the
 * same minted requests, and the floor rungs (raw workers with and without the parse, Piscina)
 * answer valid. A failing parse in the `parse` rungs, a peer that verifies nothing, or a changed
 * answer would make the ladder's differences meaningless; here each peer runs as its own process
 * (sources through tsx), the way the benchmark starts it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintMix, mixConfig } from '../../bench/mix.js';
import { coreInputOf } from '../../bench/corePath.js';
import { startBenchPeer, type PeerProcess } from '../../bench/peerProcess.js';
import { LATENCY_BUCKETS } from '../../src/observability/metrics.js';
import { bundleFromCollateral, startPccsServer } from '../support/pccs-server.js';
import { reportText } from '../support/ledger-reports.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';

const mix = mintMix(4);
const requests = mix.updates.map((u, i) => ({ userData: u.userData.text, report: reportText(i % 2 === 0 ? u.typeA : u.typeB) }));
const dir = mkdtempSync(join(tmpdir(), 'bench-peers-'));
let pccs: Awaited<ReturnType<typeof startPccsServer>>;
let service: RunningServer;
let config: Record<string, unknown>;
const peers: PeerProcess[] = [];

/** Starts bench/<file> as http-load.ts does (bench/peerProcess.ts), from the sources. */
async function startPeerProcess(file: string, args: string[]): Promise<PeerProcess> {
  const peer = await startBenchPeer(file, args, { env: { ...process.env, BENCH_MODULES: 'src' } });
  peers.push(peer);
  return peer;
}

beforeAll(async () => {
  pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
  writeFileSync(join(dir, 'core-input.v8'), serialize(coreInputOf(mix)));
  config = { ...mixConfig(mix, dir, pccs.url), workers: 1, logLevel: 'warn' };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 0, host: '127.0.0.1', ...config }));
  service = await startServer(config);
});

afterAll(async () => {
  for (const p of peers) await p.stop();
  await service?.close();
  await pccs?.close();
});

describe('bench/http-load.ts peers', () => {
  it('frameworkless: the same answer as the service for every request of the mix', async () => {
    const { url } = await startPeerProcess('frameworklessServer.ts', [join(dir, 'config.json')]);
    for (const body of requests) {
      const expected = await postJson(`${service.url}/decodeReport`, body);
      expect(expected.status).toBe(200);
      expect(expected.body.reportValid).toBe(true);
      const got = await postJson(`${url}/decodeReport`, body);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(expected.body);
    }
  });

  it.each([
    ['floor', []],
    ['floor+parse', ['parse']],
    ['floor+piscina', ['piscina']],
  ])('%s: every request of the mix is answered valid, and counted in its own latency histogram', async (_name, mode) => {
    const peer = await startPeerProcess('floorServer.ts', ['1', join(dir, 'core-input.v8'), ...mode]);
    // http-load.ts sets these counts (bench/peerLatency.ts) beside the service's HTTP histogram
    expect(peer.latency).toBeDefined();
    expect((await peer.latency!()).at(-1)).toBe(0);
    for (const body of requests) {
      const got = await postJson(`${peer.url}/decodeReport`, body);
      expect(got.status).toBe(200);
      expect(got.body.reportValid).toBe(true);
    }
    const counts = await peer.latency!();
    expect(counts).toHaveLength(LATENCY_BUCKETS.length + 1);
    expect(counts.at(-1)).toBe(requests.length);
    // cumulative: each bound holds at least the requests of the one below it
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
  });

  it('frameworkless keeps no latency counts of its own (the service\'s metrics are its histograms)', async () => {
    const peer = await startPeerProcess('frameworklessServer.ts', [join(dir, 'config.json')]);
    expect(peer.latency).toBeUndefined();
  });

  it('floor+parse: texts that do not parse are refused, so the rung really parses', async () => {
    const { url } = await startPeerProcess('floorServer.ts', ['1', join(dir, 'core-input.v8'), 'parse']);
    const bad = await postJson(`${url}/decodeReport`, { ...requests[0], report: '{ c0: 1u128 }' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorString).toMatch(/report/);
    const good = await postJson(`${url}/decodeReport`, requests[1]);
    expect(good.body.reportValid).toBe(true);
  });
});
