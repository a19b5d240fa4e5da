/**
 * Startup says what will fail: right after startup the server probes the PCCS once, in the
 * background. A PCCS that does not answer (a real port that refuses connections) is one warning
 * naming the URL, the reason and what will fail; a real PCCS process that answers is one info line
 * and no warning; readiness does not wait for the probe (a PCCS holding it open); no PCCS at all
 * (pccsUrl null) logs nothing about it. Also through the real entry point as a process (pino).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { startMain, logRecords } from '../support/process.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { recordedBundle2026, startPccsServer } from '../support/pccs-server.js';
import { VECTORS } from '../support/paths.js';
import { targets } from '../support/nitro-pair.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const base = { verificationTime: '2026-09-23T00:00:00Z', uniqueIdTarget: SGX_MRENCLAVE, pcrValuesTarget: targets.pcrValuesTarget };

interface Line {
  level: 'info' | 'warn';
  msg: string;
  obj: Record<string, unknown>;
}

/** A logger that keeps its lines. */
function recorder(): { lines: Line[]; info(o: object | string, m?: string): void; warn(o: object | string, m?: string): void } {
  const lines: Line[] = [];
  const push = (level: Line['level']) => (o: object | string, m?: string) =>
    lines.push(typeof o === 'string' ? { level, msg: o, obj: {} } : { level, msg: m ?? '', obj: o as Record<string, unknown> });
  return { lines, info: push('info'), warn: push('warn') };
}
const aboutPccs = (lines: Line[]) => lines.filter((l) => /^PCCS /.test(l.msg));

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A PCCS URL whose port refuses connections: a simulator that was there and is gone. */
async function gonePccsUrl(): Promise<string> {
  const sim = await startPccsServer(recordedBundle2026(VECTORS));
  await sim.close();
  return sim.url;
}

describe('the startup PCCS probe (in-process)', () => {
  let pccs: PccsProcess;
  beforeAll(async () => {
    pccs = await startPccsProcess(recordedBundle2026(VECTORS));
  });
  afterAll(async () => {
    await pccs?.stop();
  });

  it('an unreachable PCCS: one warning with the URL, the reason and what will fail', async () => {
    const gone = await gonePccsUrl();
    const log = recorder();
    const s = await startServer({ ...base, pccsUrl: gone }, process.cwd(), log);
    servers.push(s);
    await s.pccsProbe;
    // One warning; the circuit breaker's own line (it opened on that failure) is information.
    const lines = aboutPccs(log.lines).filter((l) => l.level === 'warn');
    expect(lines).toHaveLength(1);
    expect(aboutPccs(log.lines).filter((l) => l.level !== 'warn').every((l) => l.msg.startsWith('PCCS circuit open'))).toBe(true);
    expect(lines[0]).toMatchObject({ level: 'warn', obj: { pccsUrl: gone, errorCode: 'PCCS_UNAVAILABLE' } });
    expect(lines[0]!.msg).toMatch(/^PCCS not reachable at startup \(connection failed \(.*ECONNREFUSED.*\)\): typeA reports are answered unverifiable until it answers \(or set collateralDir to verify them offline\)$/);
    // GET /status/pccs answers from that same probe.
    expect(await (await fetch(`${s.url}/status/pccs`)).json()).toMatchObject({ reachable: false, errorCode: 'PCCS_UNAVAILABLE' });
  });

  it('with a collateral directory, the warning says what the PCCS was for', async () => {
    const log = recorder();
    const s = await startServer({ ...base, collateralDir: './collateral', pccsUrl: await gonePccsUrl() }, join(process.cwd(), 'examples/offline-sgx'), log);
    servers.push(s);
    await s.pccsProbe;
    const lines = aboutPccs(log.lines).filter((l) => l.level === 'warn');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(/: typeA collateral the collateral directory lacks cannot be fetched: such reports are answered unverifiable$/);
  });

  it('a real PCCS process that answers: an info line, no warning', async () => {
    const log = recorder();
    const s = await startServer({ ...base, pccsUrl: pccs.url }, process.cwd(), log);
    servers.push(s);
    await s.pccsProbe;
    expect(aboutPccs(log.lines)).toEqual([{ level: 'info', msg: 'PCCS reachable', obj: { pccsUrl: pccs.url, latencyMs: expect.any(Number) } }]);
  });

  it('readiness does not wait for the probe: /readyz answers while the PCCS holds it open', async () => {
    const sim = await startPccsServer(recordedBundle2026(VECTORS));
    let release!: () => void;
    sim.inject('rootcacrl', { status: 200, body: 'ab', until: new Promise<void>((r) => (release = r)) });
    try {
      const log = recorder();
      const s = await startServer({ ...base, pccsUrl: sim.url, pccsProbeTimeoutMs: 60_000 }, process.cwd(), log);
      servers.push(s);
      let settled = false;
      void s.pccsProbe.then(() => (settled = true));
      await expect.poll(() => sim.requests.filter((r) => r.endsWith('/rootcacrl')).length).toBe(1);
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      expect(settled).toBe(false);
      expect(aboutPccs(log.lines)).toEqual([]);
      release();
      await s.pccsProbe;
      expect(aboutPccs(log.lines).map((l) => [l.level, l.msg])).toEqual([['info', 'PCCS reachable']]);
    } finally {
      release();
      await sim.close();
    }
  });

  it('no PCCS configured (pccsUrl null, a collateral directory): nothing probed, nothing logged about it', async () => {
    const log = recorder();
    const s = await startServer({ ...base, collateralDir: './collateral', pccsUrl: null }, join(process.cwd(), 'examples/offline-sgx'), log);
    servers.push(s);
    await s.pccsProbe;
    expect(aboutPccs(log.lines)).toEqual([]);
  });
});

describe('the startup PCCS probe (the service process)', () => {
  it('logs one warning for an unreachable PCCS, after listening without waiting for it', async () => {
    const gone = await gonePccsUrl();
    const dir = mkdtempSync(join(tmpdir(), 'verifier-pccs-startup-'));
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ port: 0, host: '127.0.0.1', ...base, pccsUrl: gone, liveCheck: { skip: true }, logLevel: 'info' }));
    const svc = await startMain(['--config', cfg]);
    try {
      const warnings = () => (logRecords(svc) as { level: number; msg: string; pccsUrl?: string }[]).filter((r) => r.level === 40 && /PCCS/.test(r.msg));
      await expect.poll(() => warnings().length).toBe(1);
      expect(warnings()[0]).toMatchObject({ pccsUrl: gone, msg: expect.stringMatching(/^PCCS not reachable at startup \(connection failed/) });
      // A later status request adds no warning.
      expect((await fetch(`${svc.url}/status/pccs`)).status).toBe(200);
      expect(warnings()).toHaveLength(1);
    } finally {
      expect(await svc.stop('SIGTERM')).toBe(0);
    }
  });
});
