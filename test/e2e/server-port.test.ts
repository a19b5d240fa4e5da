/**
 * Ports and usage errors of the real server process (issue 27, item 4): `--port` and the PORT
 * environment variable override the config's port (`--port` first); a port in use is one line on
 * stderr naming the port and the override, exit 2, no stack trace, and the watcher's store lease
 * is given back, and the log holds only what happened before (the startup PCCS probe it abandoned
 * is no PCCS failure; a server that never listened does not say it stops accepting); usage errors (unknown option, a --config file that cannot be read, a bad port)
 * exit 2 like the CLI's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { childEnv, runMain, startMain } from '../support/process.js';

const targets = readVectorJson<any>('production-targets.json');
const TIMEOUT = 180_000; // a guard against a hang, not a synchronisation
let dir: string;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'server-port-'));
  // A port in use for the whole file (held by this test).
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  busyPort = (busy.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => busy?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(name: string, extra: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ port: busyPort, host: '127.0.0.1', uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget, liveCheck: { skip: true }, workers: 1, ...extra }));
  return file;
}

const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ ...childEnv(), ...extra });

describe('server port', { timeout: 600_000 }, () => {
  it('--port and PORT override the config port, --port first', async () => {
    const cfg = config('override.json');
    for (const run of [
      { args: ['--port', '0'], env: env({}) },
      { args: ['--port=0'], env: env({ PORT: String(busyPort) }) },
      { args: [], env: env({ PORT: '0' }) },
    ]) {
      const s = await startMain(['--config', cfg, ...run.args], { env: run.env, timeoutMs: TIMEOUT });
      try {
        expect(Number(new URL(s.url).port)).not.toBe(busyPort);
        expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      } finally {
        expect(await s.stop()).toBe(0);
      }
    }
  });

  it('a port in use: one line naming the port and the override, exit 2, the store lease given back', async () => {
    const r = await runMain(['--config', config('busy.json')], { env: env({}), timeoutMs: TIMEOUT });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: port ${busyPort} is in use; set PORT or --port to another port\n`);
    const viaEnv = await runMain(['--config', config('busy.json')], { env: env({ PORT: String(busyPort) }), timeoutMs: TIMEOUT });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toBe(`error: port ${busyPort} is in use; set PORT or --port to another port\n`);

    const chain = new LedgerChain(10, 12);
    chain.add(11, [t.transfer()]);
    const node: LedgerNode = await startLedgerNode();
    chain.install(node);
    try {
      const db = join(dir, 'ledger.db');
      const watching = await runMain(['--config', config('busy-watch.json', { liveCheck: { skip: true, apiBaseUrl: node.url }, watch: { enabled: true, database: db } })], { env: env({}), timeoutMs: TIMEOUT });
      expect(watching.code).toBe(2);
      expect(watching.stderr).toBe(`error: port ${busyPort} is in use; set PORT or --port to another port\n`);
      const raw = new Database(db, { readonly: true });
      expect(raw.prepare('SELECT count(*) AS n FROM lease').get()).toEqual({ n: 0 });
      raw.close();
    } finally {
      await node.close();
    }
  });

  it('a port in use: the log says only what happened before (no PCCS failure from the abandoned probe, no "shutting down" of a server that never listened)', async () => {
    // The busy port's server accepts connections and never answers: as the PCCS, its startup
    // probe is still waiting when the listen fails, and is abandoned by the shutdown.
    const cfg = config('busy-pccs.json', { pccsUrl: `http://127.0.0.1:${busyPort}/sgx/certification/v4/`, pccsProbeTimeoutMs: 60_000, logLevel: 'info' });
    const r = await runMain(['--config', cfg], { env: env({}), timeoutMs: TIMEOUT });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: port ${busyPort} is in use; set PORT or --port to another port\n`);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    const records = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.map((x) => [x.level, x.msg])).toEqual([
      [40, 'liveCheck.skip is true: the targets are not compared with the ledger program'],
      [30, 'trust roots loaded'],
    ]);
  });

  it('usage errors exit 2 with the reason and the usage', async () => {
    const unknown = await runMain(['--bogus'], { env: env({}), timeoutMs: TIMEOUT });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^oracle-verifier-server: unknown option "--bogus"\n\nusage: oracle-verifier-server \[--config PATH\] \[--port N\]/);
    const stray = await runMain(['serve'], { env: env({}), timeoutMs: TIMEOUT });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/^oracle-verifier-server: unknown argument "serve"\n/);
    const missing = await runMain(['--config', join(dir, 'missing.json')], { env: env({}), timeoutMs: TIMEOUT });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^config: cannot read .*missing\.json: ENOENT\n$/);
    const noPath = await runMain(['--config'], { env: env({}), timeoutMs: TIMEOUT });
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toMatch(/^oracle-verifier-server: --config needs a path\n/);
    for (const [args, extra, line] of [
      [['--port', 'http'], {}, 'oracle-verifier-server: --port must be a port number 0-65535, got "http"'],
      [['--port', '70000'], {}, 'oracle-verifier-server: --port must be a port number 0-65535, got "70000"'],
      [[], { PORT: '-1' }, 'oracle-verifier-server: PORT must be a port number 0-65535, got "-1"'],
    ] as const) {
      const r = await runMain(['--config', config('usage.json'), ...args], { env: env(extra), timeoutMs: TIMEOUT });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(line);
    }
    // A config that is read but wrong stays a failed startup check (1).
    const wrong = await runMain(['--config', config('wrong.json', { colour: 1 })], { env: env({}), timeoutMs: TIMEOUT });
    expect(wrong.code).toBe(1);
  });
});
