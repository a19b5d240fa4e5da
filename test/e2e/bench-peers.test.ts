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

/** Starts bench/<file> as http-load.ts does (bench/peerProcess.ts), from the sources; returns its URL. */
async function startPeer(file: string, args: string[]): Promise<string> {
  const peer = await startBenchPeer(file, args, { env: { ...process.env, BENCH_MODULES: 'src' } });
  peers.push(peer);
  return peer.url;
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
    const url = await startPeer('frameworklessServer.ts', [join(dir, 'config.json')]);
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
  ])('%s: every request of the mix is answered valid', async (_name, mode) => {
    const url = await startPeer('floorServer.ts', ['1', join(dir, 'core-input.v8'), ...mode]);
    for (const body of requests) {
      const got = await postJson(`${url}/decodeReport`, body);
      expect(got.status).toBe(200);
      expect(got.body.reportValid).toBe(true);
    }
  });

  it('floor+parse: texts that do not parse are refused, so the rung really parses', async () => {
    const url = await startPeer('floorServer.ts', ['1', join(dir, 'core-input.v8'), 'parse']);
    const bad = await postJson(`${url}/decodeReport`, { ...requests[0], report: '{ c0: 1u128 }' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorString).toMatch(/report/);
    const good = await postJson(`${url}/decodeReport`, requests[1]);
    expect(good.body.reportValid).toBe(true);
  });
});
