/**
 * A stalled log reader does not turn SIGTERM into a hang (issue 32 item 9), on the real server
 * process: its stdout is a FIFO whose reader (`cat`) is stopped with SIGSTOP once the server
 * listens; requests with long URLs fill the FIFO with log lines (far more than a pipe holds), and
 * the server keeps answering. Then SIGTERM must end the process (exit 0: nothing was in flight)
 * within its grace period; and, with a request still arriving, a second SIGTERM ends it at once
 * (exit 1). Before, pino's exit flush busy-waited on EAGAIN for as long as the reader slept.
 * The bound asserted is the grace plus a wide margin; every wait is for an event (a log line read
 * by the reader, an answer, a connection closed, the process's 'exit').
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, MAIN, TSX } from '../support/process.js';

const GRACE_MS = 3000;
/** Generous: the grace period, the process's own start-up of its exit, and a loaded machine. */
const EXIT_BOUND_MS = GRACE_MS + 20_000;
let dir: string;
const children: ChildProcess[] = [];
const sockets: Socket[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'log-stall-'));
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Stalled {
  server: ChildProcess;
  reader: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts the server with stdout to a FIFO read by `cat`; resolves once it listens, then stops the reader. */
async function startWithStalledLog(name: string, cfg: Record<string, unknown>): Promise<Stalled> {
  const fifo = join(dir, `${name}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(reader);
  // Blocks until cat has opened its end.
  const fd = openSync(fifo, 'w');
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync('config.json', 'utf8')), port: 0, host: '127.0.0.1', workers: 0, logLevel: 'info', ...cfg }));
  const server = spawn(process.execPath, ['--import', TSX, MAIN, '--config', config], { stdio: ['ignore', fd, 'pipe'], env: childEnv() });
  closeSync(fd);
  children.push(server);
  const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    reader.stdout!.on('data', (d) => {
      out += d;
      const m = /"address":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"verifier listening"|"msg":"verifier listening"[^\n]*"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) resolve((m[1] ?? m[2])!);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${out}`)));
  });
  reader.kill('SIGSTOP');
  return { server, reader, url, exited };
}

/** Requests whose log lines (each holding an 8 KB URL) fill any pipe many times over; all must be answered. */
async function fillTheLog(url: string): Promise<void> {
  const long = 'x'.repeat(8000);
  for (let i = 0; i < 250; i++) {
    const r = await fetch(`${url}/nope?${long}${i}`);
    expect(r.status).toBe(404);
    await r.arrayBuffer();
  }
}

/** The process's exit code, or 'hung' if it has not exited within `ms` (a guard, not a synchronisation). */
function exitWithin(s: Stalled, ms: number): Promise<number | null | 'hung'> {
  return Promise.race([s.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms).unref())]);
}

describe('SIGTERM with a stalled log reader', () => {
  it('ends the process within its grace period', async () => {
    const s = await startWithStalledLog('one', { headersTimeoutMs: 1000, requestTimeoutMs: 1000, shutdownGraceMs: GRACE_MS });
    await fillTheLog(s.url);
    s.server.kill('SIGTERM');
    expect(await exitWithin(s, EXIT_BOUND_MS)).toBe(0);
  }, 120_000);

  it('a second SIGTERM ends it at once while the first waits for a request still arriving', async () => {
    // A long grace and request limit: the first SIGTERM waits for the body still arriving.
    const s = await startWithStalledLog('two', { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, shutdownGraceMs: 120_000 });
    const port = Number(new URL(s.url).port);
    const open = (text: string) =>
      new Promise<Socket>((resolve) => {
        const c = connect(port, '127.0.0.1', () => resolve(c));
        c.on('error', () => undefined);
        sockets.push(c);
        c.write(text);
      });
    // A body that never comes, then an idle connection.
    const slow = await open('POST /decodeReport HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    await fillTheLog(s.url);
    const idle = await open('');
    const idleClosed = new Promise<void>((r) => idle.once('close', () => r()));
    s.server.kill('SIGTERM');
    // The first signal was handled: idle connections are closed at once, the slow request is kept.
    await idleClosed;
    expect(slow.destroyed).toBe(false);
    s.server.kill('SIGTERM');
    expect(await exitWithin(s, EXIT_BOUND_MS)).toBe(1);
  }, 120_000);
});
