/**
 * Starting a bench peer (bench/floorServer.ts, bench/frameworklessServer.ts) as its own process,
 * as bench/http-load.ts runs it and test/e2e/bench-peers.test.ts checks it: through tsx, on port 0,
 * and ready once it reports the port it listens on over IPC.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LATENCY_QUESTION, type LatencyAnswer } from './peerLatency.js';

export interface PeerProcess {
  url: string;
  pid: number;
  /** SIGTERM, resolved once the process has exited. */
  stop: () => Promise<void>;
  /** The peer's own cumulative latency counts (bench/peerLatency.ts), when it keeps them. */
  latency?: () => Promise<number[]>;
}

/** Stops a child process with SIGTERM and waits for its exit. */
export function stopOf(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
}

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs bench/<file> 0 ...args; `nodeArgs` go before tsx's loader, `env` replaces the environment. */
export async function startBenchPeer(file: string, args: string[], opts: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<PeerProcess> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', TSX, resolve(import.meta.dirname, file), '0', ...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    ...(opts.env ? { env: opts.env } : {}),
  });
  const ready = await new Promise<{ port: number; latency?: boolean }>((ok, fail) => {
    child.once('message', ok);
    child.once('exit', (code, signal) => fail(new Error(`bench/${file} exited with ${code ?? signal} before listening`)));
  });
  child.removeAllListeners('exit');
  return { url: `http://127.0.0.1:${ready.port}`, pid: child.pid!, stop: stopOf(child), ...(ready.latency ? { latency: () => askLatency(child, file) } : {}) };
}

/** Asks a peer that counts its latency (bench/peerLatency.ts) for its counts, over IPC. */
function askLatency(child: ChildProcess, file: string): Promise<number[]> {
  return new Promise((ok, fail) => {
    const answer = (m: Partial<LatencyAnswer>) => {
      if (!Array.isArray(m?.latency)) return;
      child.off('exit', exited);
      child.off('message', answer);
      ok(m.latency);
    };
    const exited = () => {
      child.off('message', answer);
      fail(new Error(`bench/${file} exited before it told its latency`));
    };
    child.on('message', answer);
    child.once('exit', exited);
    child.send(LATENCY_QUESTION);
  });
}
