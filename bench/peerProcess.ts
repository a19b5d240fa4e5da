/**
 * Starting a bench peer (bench/floorServer.ts, bench/frameworklessServer.ts) as its own process,
 * as bench/http-load.ts runs it and test/e2e/bench-peers.test.ts checks it: through tsx, on port 0,
 * and ready once it reports the port it listens on over IPC.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface PeerProcess {
  url: string;
  pid: number;
  /** SIGTERM, resolved once the process has exited. */
  stop: () => Promise<void>;
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
  const port = await new Promise<number>((ok, fail) => {
    child.once('message', (m: { port: number }) => ok(m.port));
    child.once('exit', (code, signal) => fail(new Error(`bench/${file} exited with ${code ?? signal} before listening`)));
  });
  child.removeAllListeners('exit');
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: stopOf(child) };
}
