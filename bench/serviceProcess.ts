/**
 * The built service (dist/src/main.js) as its own process for the HTTP benchmarks that read it from
 * outside (bench/healthz-under-verify.ts, bench/memory.ts): config written to a file, ready once
 * GET /readyz answers 200. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopOf, type PeerProcess } from './peerProcess.js';

export function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

/** The node flags the image runs the service with (NODE_OPTIONS in the Dockerfile), as a list. */
export function imageNodeArgs(): string[] {
  return (/^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1] ?? '').replace(/^"|"$/g, '').split(' ').filter(Boolean);
}

/** Starts the service on `config` (port and host are set here) and waits until it is ready. */
export async function startServiceProcess(config: Record<string, unknown>, dir: string, name: string, nodeArgs: string[] = []): Promise<PeerProcess> {
  const main = resolve('dist/src/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  const port = await freePort();
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...config, port, host: '127.0.0.1' }));
  const child = spawn(process.execPath, [...nodeArgs, main, '--config', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it was ready`);
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break;
    if (i > 600) throw new Error('the service did not become ready within 60 s');
    await sleep(100);
  }
  return { url, pid: child.pid!, stop: stopOf(child) };
}

/** A figure of /proc/<pid>/status in MiB (VmRSS: resident now; VmHWM: the peak resident set since start). */
export function procStatusMiB(pid: number, field: 'VmRSS' | 'VmHWM', read: (path: string) => string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(read(`/proc/${pid}/status`));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}
