/**
 * Bounded shutdown of the real server process (issue 25, item 3): an incomplete request is
 * answered 408 and closed within its limit (headersTimeoutMs, requestTimeoutMs); on SIGTERM the
 * process exits 0 within shutdownGraceMs while a slow client holds half-sent headers, an idle
 * keep-alive connection is open and a ledger lookup waits for the node (answered 502: abandoned);
 * and while 8 typeA verifications wait for a PCCS process frozen with SIGSTOP, every one is
 * answered `unverifiable` and the process exits 0. Every wait is for an event (a log line, a
 * request reaching the node, bytes queued at the frozen PCCS's socket), never for a time.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { mintSgx, type MintedSgx } from '../support/minted-sgx.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { readVectorJson } from '../support/paths.js';
import { startMain, type ServiceProcess, logRecords } from '../support/process.js';
import { postJson } from '../support/server.js';
import { until } from '../support/wait.js';

const targets = readVectorJson<any>('production-targets.json');
const START_TIMEOUT_MS = 180_000; // a guard against a hung start, not a synchronisation
let dir: string;
const processes: ServiceProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shutdown-'));
});
afterAll(() => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, cfg: Record<string, unknown>): Promise<ServiceProcess> {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({ port: 0, host: '127.0.0.1', uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget, liveCheck: { skip: true }, workers: 1, logLevel: 'info', ...cfg }),
  );
  const s = await startMain(['--config', file], { timeoutMs: START_TIMEOUT_MS });
  processes.push(s);
  return s;
}

const portOf = (url: string) => Number(new URL(url).port);

/** A raw client: what it has read, and when the server closed the connection. */
function rawClient(url: string, text: string): { socket: Socket; data: () => string; closed: Promise<void> } {
  const socket = connect(portOf(url), '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  socket.write(text);
  return { socket, data: () => data, closed: new Promise((r) => socket.once('close', () => r())) };
}

const exitCode = (s: ServiceProcess, signal: NodeJS.Signals) => s.stop(signal);

describe('request time limits', { timeout: 300_000 }, () => {
  it('answers an incomplete request 408 and closes it: headers, then body', async () => {
    const s = await start('limits.json', { headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    try {
      const headers = rawClient(s.url, 'POST /decodeReport HTTP/1.1\r\nHost: x\r\n');
      await headers.closed;
      expect(headers.data()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(headers.data().slice(headers.data().indexOf('\r\n\r\n') + 4))).toEqual({ errorString: 'the request was not complete within the time limit', errorCode: 'HTTP_REQUEST_TIMEOUT' });
      const body = rawClient(s.url, 'POST /decodeReport HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"userData":');
      await body.closed;
      expect(body.data()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(body.data()).toContain('"errorCode":"HTTP_REQUEST_TIMEOUT"');
      // The server is fine.
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await exitCode(s, 'SIGTERM')).toBe(0);
    }
  });
});

describe('SIGTERM', { timeout: 600_000 }, () => {
  let node: LedgerNode;
  let txId: string;
  beforeAll(async () => {
    const chain = new LedgerChain(10, 20);
    txId = chain.add(12, [t.transfer()]).transactionId;
    node = await startLedgerNode();
    chain.install(node);
  });
  afterAll(async () => {
    await node?.close();
  });

  it('exits 0 with a slow client, an idle connection and a lookup waiting for the ledger node', async () => {
    // Node's own time limits would not end the slow client before the grace period is over.
    const s = await start('slow.json', { headersTimeoutMs: 300_000, requestTimeoutMs: 300_000, shutdownGraceMs: 600_000, liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 600_000 } });
    // An idle keep-alive connection.
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => http.get(`${s.url}/healthz`, { agent }, (r) => r.resume().on('end', () => resolve())).on('error', reject));
    // A client that never finishes its headers.
    const slow = rawClient(s.url, 'GET /info HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // A lookup whose node request never gets an answer.
    const held = node.hold((path) => path.startsWith('/transaction/'));
    const asked = new Promise<void>((r) => node.onRequest((req) => req.path.includes('/transaction/') && r()));
    const lookup = fetch(`${s.url}/ledger/transactions/${txId}`);
    await asked;
    const code = exitCode(s, 'SIGTERM');
    const answer = await lookup;
    expect(answer.status).toBe(502);
    const body = (await answer.json()) as any;
    expect(body.errorCode).toBe('LEDGER_NODE_UNREACHABLE');
    expect(body.errorString).toMatch(/failed after 1 attempt: abandoned: the verifier is shutting down$/);
    await slow.closed;
    expect(slow.data()).toBe('');
    expect(await code).toBe(0);
    expect(logRecords(s).some((r) => r.msg === 'shut down: every request in flight answered')).toBe(true);
    agent.destroy();
    held();
  });

  describe('with a frozen PCCS', () => {
    let pccs: PccsProcess;
    let sgx: MintedSgx;
    beforeAll(async () => {
      sgx = mintSgx(dir);
      pccs = await startPccsProcess(sgx.bundle);
    });
    afterAll(async () => {
      if (pccs?.child.exitCode === null) process.kill(pccs.child.pid!, 'SIGCONT');
      await pccs?.stop();
    });

    /** Bytes the server sent that wait, unread, at the PCCS's listening port (it is stopped). */
    const queuedAtPccs = (): number => {
      const port = portOf(pccs.url).toString(16).toUpperCase().padStart(4, '0');
      let queued = 0;
      for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
        let text = '';
        try {
          text = readFileSync(f, 'utf8');
        } catch {
          continue;
        }
        for (const line of text.split('\n').slice(1)) {
          const cols = line.trim().split(/\s+/);
          if (cols.length < 5 || !cols[1]!.endsWith(`:${port}`) || cols[3] !== '01') continue;
          queued += parseInt(cols[4]!.split(':')[1]!, 16);
        }
      }
      return queued;
    };

    it('answers every typeA request waiting on it unverifiable and exits 0', async () => {
      const s = await start('frozen.json', { ...sgx.config, pccsUrl: pccs.url, workers: 2, shutdownGraceMs: 600_000 });
      // Warm up nothing: the collateral is not cached, every request needs the PCCS.
      process.kill(pccs.child.pid!, 'SIGSTOP');
      const N = 8;
      const answers = Array.from({ length: N }, (_, i) => postJson(`${s.url}/decodeReport`, sgx.request(`1.0000000${i}`)));
      await until('every request received', () => logRecords(s).filter((r) => r.msg === 'incoming request' && r.req?.url === '/decodeReport').length === N, 120_000);
      await until('a collateral request waiting at the frozen PCCS', () => queuedAtPccs() > 0, 120_000);
      const code = exitCode(s, 'SIGTERM');
      const results = await Promise.all(answers);
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ reportValid: false, outcome: 'unverifiable' });
        expect(r.body.errorString).toMatch(/the verifier is shutting down/);
      }
      expect(await code).toBe(0);
    });
  });
});
