/**
 * GET /status/pccs of the real server against a real PCCS-compatible server: reachable while a
 * PCCS process runs, not reachable (with the reason) once it is stopped — seen by a real
 * collateral request and by the probe —, "not configured" with `pccsUrl: null` and a collateral
 * directory, one probe for concurrent callers (counted by the simulator), 5xx and timeouts as
 * reasons, no credentials or query of the URL in the answer, verifier_pccs_up, and the one probe
 * a server sends at startup.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { PccsClient } from '../../src/collateral/pccsClient.js';
import { PccsStatus } from '../../src/collateral/pccsStatus.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { VECTORS } from '../support/paths.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { examples, targets } from '../support/nitro-pair.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const HOUR = 3_600_000;
const servers: RunningServer[] = [];

async function start(extra: Record<string, unknown>, baseDir?: string): Promise<RunningServer> {
  const s = await startServer({ verificationTime: '2026-09-23T00:00:00Z', uniqueIdTarget: SGX_MRENCLAVE, pcrValuesTarget: targets.pcrValuesTarget, pccsProbeMaxAgeMs: HOUR, ...extra }, baseDir);
  servers.push(s);
  return s;
}

async function status(s: RunningServer): Promise<any> {
  const r = await fetch(`${s.url}/status/pccs`);
  expect(r.status).toBe(200);
  return r.json();
}

async function pccsUp(s: RunningServer): Promise<string | undefined> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return /^verifier_pccs_up (\S+)$/m.exec(text)?.[1];
}

const probesOf = (p: PccsServer) => p.requests.filter((r) => r === 'GET /sgx/certification/v4/rootcacrl').length;

afterAll(async () => {
  for (const s of servers) await s.close();
});

describe('with a PCCS process serving the 2026-09-22 collateral', () => {
  let pccs: PccsProcess;
  beforeAll(async () => {
    pccs = await startPccsProcess(recordedBundle2026(VECTORS));
  });
  afterAll(async () => {
    await pccs?.stop();
  });

  it('reachable while it runs; not reachable, with the reason, once it is stopped', async () => {
    const s = await start({ pccsUrl: pccs.url });
    // Nothing was asked of the PCCS yet: the route probes it.
    const up = await status(s);
    expect(up).toEqual({ configured: true, collateralDir: false, url: pccs.url, reachable: true, checkedAt: expect.any(String), latencyMs: expect.any(Number), circuit: { state: 'closed', opens: 0 } });
    expect(Date.parse(up.checkedAt)).toBeGreaterThan(0);
    expect(await pccsUp(s)).toBe('1');

    await pccs.stop();
    // The observation is younger than pccsProbeMaxAgeMs: no new probe yet.
    expect((await status(s)).checkedAt).toBe(up.checkedAt);
    // A real collateral request finds the PCCS gone; the status follows it.
    const v = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
    expect(v.body.reportValid).toBe(false);
    const down = await status(s);
    expect(down).toMatchObject({ configured: true, collateralDir: false, url: pccs.url, reachable: false, errorCode: 'PCCS_UNAVAILABLE' });
    expect(down.error).toMatch(/^connection failed \(.*ECONNREFUSED/);
    expect(Date.parse(down.checkedAt)).toBeGreaterThanOrEqual(Date.parse(up.checkedAt));
    expect(await pccsUp(s)).toBe('0');

    // A verifier started now finds it gone through its probe.
    const fresh = await start({ pccsUrl: pccs.url });
    expect(await status(fresh)).toMatchObject({ configured: true, reachable: false, errorCode: 'PCCS_UNAVAILABLE', error: expect.stringMatching(/ECONNREFUSED/) });
  });
});

describe('against the in-process PCCS simulator', () => {
  let sim: PccsServer;
  beforeAll(async () => {
    sim = await startPccsServer(recordedBundle2026(VECTORS));
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('concurrent callers share one probe (tracker and route)', async () => {
    sim.requests.length = 0;
    const client = new PccsClient({ baseUrl: sim.url, onRequest: (...a) => tracker.observe(...a) });
    const tracker: PccsStatus = new PccsStatus({ baseUrl: client.baseUrl, maxAgeMs: HOUR, probe: () => client.probe(30_000) });
    const all = await Promise.all(Array.from({ length: 6 }, () => tracker.current()));
    expect(all.every((x) => x === all[0] && x.reachable)).toBe(true);
    expect(tracker.probes).toBe(1);
    expect(probesOf(sim)).toBe(1);

    // Over HTTP: the server's startup probe is held open until the simulator has it; every caller
    // shares it and gets its answer.
    sim.requests.length = 0;
    let release!: () => void;
    sim.inject('rootcacrl', { status: 200, body: 'ab', until: new Promise<void>((r) => (release = r)) });
    const s = await start({ pccsUrl: sim.url });
    const answers = Array.from({ length: 5 }, () => status(s));
    await expect.poll(() => probesOf(sim)).toBe(1);
    release();
    const got = await Promise.all(answers);
    expect(got.every((g) => g.reachable === true && g.checkedAt === got[0].checkedAt)).toBe(true);
    expect(probesOf(sim)).toBe(1);
  });

  it('verifier_pccs_up: 0 while nothing is observed (the startup probe held open), then follows the probe; a scrape adds no probe', async () => {
    sim.requests.length = 0;
    let release!: () => void;
    sim.inject('rootcacrl', { status: 200, body: 'ab', until: new Promise<void>((r) => (release = r)) });
    const s = await start({ pccsUrl: sim.url });
    await expect.poll(() => probesOf(sim)).toBe(1);
    expect(await pccsUp(s)).toBe('0');
    release();
    await expect.poll(() => pccsUp(s)).toBe('1');
    expect(probesOf(sim)).toBe(1);
  });

  it('a server probes its PCCS once at startup, without being asked', async () => {
    sim.requests.length = 0;
    const s = await start({ pccsUrl: sim.url });
    await s.pccsProbe;
    expect(probesOf(sim)).toBe(1);
    expect(await status(s)).toMatchObject({ reachable: true });
    expect(probesOf(sim)).toBe(1);
  });

  it('a 5xx answer and a probe without answer in time are not reachable, with the reason', async () => {
    sim.inject('rootcacrl', { status: 503 });
    expect(await status(await start({ pccsUrl: sim.url }))).toMatchObject({ reachable: false, error: 'HTTP 503', errorCode: 'PCCS_HTTP_ERROR' });
    let release!: () => void;
    sim.inject('rootcacrl', { status: 200, until: new Promise<void>((r) => (release = r)) });
    try {
      expect(await status(await start({ pccsUrl: sim.url, pccsProbeTimeoutMs: 200 }))).toMatchObject({ reachable: false, error: 'no answer within 200 ms', errorCode: 'PCCS_UNAVAILABLE' });
    } finally {
      release();
    }
  });

  it('a 404 (Intel PCS has no rootcacrl route) is an answer: reachable', async () => {
    sim.inject('rootcacrl', { status: 404 });
    expect(await status(await start({ pccsUrl: sim.url }))).toMatchObject({ reachable: true });
  });

  it('requests to other hosts (the root CA CRL distribution point) are not observations of the PCCS', () => {
    const t = new PccsStatus({ baseUrl: sim.url, maxAgeMs: HOUR, probe: async () => {} });
    t.observe('https://certificates.trustedservices.intel.com/IntelSGXRootCA.der', 'error', 5, 'connection failed');
    expect(t.last).toBeUndefined();
    t.observe(`${sim.url}rootcacrl`, 200, 5);
    expect(t.last?.reachable).toBe(true);
  });

  it('never shows the query of the URL, which is sent; credentials in it are refused by the config', async () => {
    const port = new URL(sim.url).port;
    await expect(start({ pccsUrl: `http://verifier:s3cret@127.0.0.1:${port}/sgx/certification/v4/` })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    sim.requests.length = 0;
    const s = await start({ pccsUrl: `http://127.0.0.1:${port}/sgx/certification/v4/?subscription=k3y` });
    const text = await (await fetch(`${s.url}/status/pccs`)).text();
    const body = JSON.parse(text);
    expect(body.url).toBe(`http://127.0.0.1:${port}/sgx/certification/v4/`);
    expect(body).toMatchObject({ configured: true, reachable: true });
    for (const secret of ['k3y', 'subscription']) expect(text).not.toContain(secret);
    expect(sim.requests).toEqual(['GET /sgx/certification/v4/rootcacrl?subscription=k3y']);
  });
});

describe('without a PCCS', () => {
  it('pccsUrl null with a collateral directory: not configured, no verifier_pccs_up', async () => {
    const dir = resolve('examples/offline-sgx');
    const cfg = JSON.parse(readFileSync(resolve(dir, 'config.json'), 'utf8'));
    const s = await start({ ...cfg, port: 0, pccsUrl: null }, dir);
    expect(await status(s)).toEqual({ configured: false, collateralDir: true, reachable: null });
    expect(await pccsUp(s)).toBeUndefined();
    // typeA still verifies from the directory alone.
    const v = await postJson(`${s.url}/decodeReport`, JSON.parse(readFileSync(resolve(dir, 'sgx-request.json'), 'utf8')));
    expect(v.body.errorCode).toBe('TYPEA_TCB_STATUS_REJECTED');
  });

  it('pccsUrl null without a collateral directory, and probe settings out of range, stop the startup', () => {
    const base = { port: 0, liveCheck: { skip: true } };
    expect(() => resolveConfig({ ...base, pccsUrl: null }, '.')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/pccsUrl = null: without a PCCS typeA needs a collateral directory/) }));
    expect(() => resolveConfig({ ...base, pccsProbeMaxAgeMs: 10, pccsProbeTimeoutMs: 0 }, '.')).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/pccsProbeMaxAgeMs = 10: expected a number ≥ 1000\nconfig: pccsProbeTimeoutMs = 0: expected a number ≥ 100/) }),
    );
    const c = resolveConfig(base, '.');
    expect([c.pccsProbeMaxAgeMs, c.pccsProbeTimeoutMs]).toEqual([30_000, 5_000]);
  });
});

describe('the route in the API description', () => {
  it('documents /status/pccs with its answer and error statuses; other methods answer 405', async () => {
    const s = await start({ pccsUrl: null, collateralDir: resolve('examples/offline-sgx/collateral') });
    const doc: any = await (await fetch(`${s.url}/docs/json`)).json();
    const op = doc.paths['/status/pccs'].get;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '405', '500', '503']);
    expect(op.responses['200'].content['application/json'].schema.required).toEqual(['configured', 'collateralDir', 'reachable']);
    const r = await fetch(`${s.url}/status/pccs`, { method: 'POST' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
  });
});
