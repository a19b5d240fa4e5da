import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The ledger node's HTTP/1.1 reader (src/upstream/http1Agent.ts) keeps idle connections for the
 * next request, and must not keep a process alive by them: `reverify` ends when its scan is done
 * without closing the agent, and the watcher's shutdown must not wait on a node's idle socket. A
 * child process GETs from a server here that never closes an idle connection, prints what its agent
 * kept, and must then exit on its own.
 */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const AGENT = pathToFileURL(resolve('src/upstream/http1Agent.ts')).href;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

describe('Http1Agent: idle connections', () => {
  it('keeps the connection for the next request and still lets the process end', async () => {
    const accepted: Socket[] = [];
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[1,2,3]');
    });
    // Never closes an idle connection: only the client's unref lets its process end.
    server.keepAliveTimeout = 0;
    server.on('connection', (s: Socket) => accepted.push(s));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/blocks`;
    const script = `
      const { Http1Agent } = await import(${JSON.stringify(AGENT)});
      const agent = new Http1Agent();
      const answer = await agent.get(${JSON.stringify(url)}, { accept: 'application/json' }, new AbortController().signal);
      const body = await answer.read(1024);
      console.log(JSON.stringify({ status: answer.status, body: body.ok ? body.bytes.toString() : body.reason, idle: agent.idleCount }));
    `;
    const child = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // Resolves only when the child ends by itself (a kept, ref'd socket would keep it forever).
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ status: 200, body: '[1,2,3]', idle: 1 });
    // The child's connection was kept, not closed after the answer: the server saw one connection,
    // and it ended only with the process.
    expect(accepted).toHaveLength(1);
  }, 120_000);
});
