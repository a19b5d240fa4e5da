/**
 * What a client can make the server hold by connecting and not reading (issue 48, items 1, 5, 6):
 * pipelined requests whose answers are never read, connections in all and per address, idle
 * keep-alive connections, and TLS handshakes that never finish. Each wait is for the event (a
 * socket's close, a metric's value), never for a time.
 */
import net from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { bootstrap } from '../../src/bootstrap.js';
import { silentLog, startServer, type RunningServer } from '../support/server.js';
import { selfSignedTls } from '../support/selfSignedTls.js';
import { until } from '../support/wait.js';
import { readVectorJson } from '../support/paths.js';

const targets = readVectorJson<any>('production-targets.json');
/** The production targets (no reproducible build at startup). */
const TARGETS = { uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget };

let servers: RunningServer[] = [];
let sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(config: Record<string, unknown> = {}): Promise<RunningServer> {
  const s = await startServer({ ...TARGETS, ...config });
  servers.push(s);
  return s;
}

const portOf = (url: string) => Number(new URL(url).port);

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    sockets.push(s);
    s.once('error', reject);
  });
}

const closed = (s: net.Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

/** A metric's value from GET /metrics (0 when the series is absent). */
async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

/** Every byte a socket receives until it closes. */
function collect(s: net.Socket): Promise<string> {
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString('latin1')));
  s.on('error', () => undefined);
  return closed(s).then(() => text);
}

describe('pipelined answers a client does not read', () => {
  it('closes a connection with more than maxPipelinedRequests requests unanswered, answering at most that many', async () => {
    const srv = await server();
    const s = await connect(portOf(srv.url));
    s.pause(); // never reads while it sends
    s.write(get('/docs/json').repeat(500));
    await until('the pipelining bound to close the connection', async () => (await metric(srv.url, 'verifier_http_connections_refused_total{reason="pipelined"}')) === 1);
    const text = collect(s);
    s.resume();
    const answers = (await text).split('HTTP/1.1 200 OK').length - 1;
    expect(answers).toBeLessThanOrEqual(16);
    // The server goes on answering others.
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
  });

  it('answers pipelined requests within the bound, in order, and keeps the connection', async () => {
    const srv = await server({ maxPipelinedRequests: 4 });
    const s = await connect(portOf(srv.url));
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.write(get('/healthz') + get('/info') + get('/healthz') + get('/nope'));
    await until('four answers', () => (text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 4 && text.endsWith('}'));
    expect((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).map((l) => l.slice(9))).toEqual(['200', '200', '200', '404']);
    s.write(get('/healthz'));
    await until('a fifth answer on the same connection', () => (text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 5);
    expect(s.destroyed).toBe(false);
    expect(await metric(srv.url, 'verifier_http_connections_refused_total{reason="pipelined"}')).toBe(0);
  });
});

describe('connections', () => {
  it('closes a connection beyond maxConnectionsPerClient as it opens, and takes one again once another closed', async () => {
    const srv = await server({ maxConnectionsPerClient: 3 });
    const port = portOf(srv.url);
    const held = [await connect(port), await connect(port), await connect(port)];
    // The server has accepted them once each has an answer.
    for (const s of held) {
      const text = new Promise<string>((r) => s.once('data', (d: Buffer) => r(d.toString('latin1'))));
      s.write(get('/healthz'));
      expect(await text).toMatch(/^HTTP\/1\.1 200/);
    }
    const fourth = await connect(port);
    const fourthText = collect(fourth);
    fourth.write(get('/healthz'));
    expect(await fourthText).toBe('');
    expect(await fetchOnNewConnection(port)).toBe('refused');
    held[0]!.destroy();
    await until('a connection to be free again', async () => (await fetchOnNewConnection(port)) === 200);
    held[1]!.destroy();
    await until('the scrape to find a connection', () => metric(srv.url, 'verifier_http_connections_refused_total{reason="max_connections_per_client"}').catch(() => false));
    expect(await metric(srv.url, 'verifier_http_connections_refused_total{reason="max_connections_per_client"}')).toBeGreaterThanOrEqual(2);
  });

  it('closes a connection beyond maxConnections in all', async () => {
    const srv = await server({ maxConnections: 16, maxConnectionsPerClient: 16 });
    const port = portOf(srv.url);
    const held: net.Socket[] = [];
    for (let i = 0; i < 16; i++) {
      const s = await connect(port);
      const text = new Promise<string>((r) => s.once('data', (d: Buffer) => r(d.toString('latin1'))));
      s.write(get('/healthz'));
      expect(await text).toMatch(/^HTTP\/1\.1 200/);
      held.push(s);
    }
    const extra = await connect(port);
    const text = collect(extra);
    extra.write(get('/healthz'));
    expect(await text).toBe('');
    held[0]!.destroy();
    await until('a connection to be free again', async () => (await fetchOnNewConnection(port)) === 200);
    held[1]!.destroy();
    await until('the scrape to find a connection', () => metric(srv.url, 'verifier_http_connections_refused_total{reason="max_connections"}').catch(() => false));
    expect(await metric(srv.url, 'verifier_http_connections_refused_total{reason="max_connections"}')).toBeGreaterThanOrEqual(1);
    expect(await metric(srv.url, 'verifier_http_connections_refused_total{reason="max_connections_per_client"}')).toBe(0);
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    const srv = await server({ keepAliveTimeoutMs: 1000 });
    expect(srv.app.server.keepAliveTimeout).toBe(1000);
    const s = await connect(portOf(srv.url));
    const text = collect(s);
    s.write(get('/healthz'));
    expect(await text).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive: timeout=1/i);
  });
});

/** One GET /healthz on a new connection: its status, or 'refused' when the connection closed unanswered. */
async function fetchOnNewConnection(port: number): Promise<number | 'refused'> {
  const s = await connect(port);
  const text = collect(s);
  s.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  const t = await text;
  return t === '' ? 'refused' : Number(t.slice(9, 12));
}

describe('TLS handshakes that never finish', () => {
  async function tlsServer(extra: Record<string, unknown>) {
    const dir = mkdtempSync(join(tmpdir(), 'conn-tls-'));
    const { keyPem, certPem } = await selfSignedTls();
    writeFileSync(join(dir, 'tls.key'), keyPem);
    writeFileSync(join(dir, 'tls.crt'), certPem);
    const config = resolveConfig({ port: 0, host: '127.0.0.1', workers: 0, liveCheck: { skip: true }, ...TARGETS, useTls: true, tlsKey: 'tls.key', tlsCert: 'tls.crt', ...extra }, dir);
    const started = await bootstrap(config, silentLog, { logger: false });
    await started.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (started.app.server.address() as net.AddressInfo).port;
    return { ...started, port };
  }

  it('closes a silent socket, half a ClientHello and a 1-byte record at the handshake deadline', async () => {
    const srv = await tlsServer({ headersTimeoutMs: 1000, requestTimeoutMs: 1000 });
    try {
      const silent = await connect(srv.port);
      const half = await connect(srv.port);
      half.write(Buffer.from('16030100c8010000c40303', 'hex')); // a ClientHello's record and handshake headers, then nothing
      const oneByte = await connect(srv.port);
      oneByte.write(Buffer.from([0x16]));
      for (const s of [silent, half, oneByte]) s.on('error', () => undefined);
      await Promise.all([closed(silent), closed(half), closed(oneByte)]);
    } finally {
      await srv.shutdown(5000);
    }
  });

  it('a handshake still going on does not hold the shutdown open', async () => {
    const srv = await tlsServer({ headersTimeoutMs: 600_000, requestTimeoutMs: 600_000, shutdownGraceMs: 3_600_000 });
    const silent = await connect(srv.port);
    silent.on('error', () => undefined);
    await until('the server to count the connection', () => srv.app.server.listening && new Promise<boolean>((r) => srv.app.server.getConnections((_e, n) => r(n === 1))));
    // The grace period is 5 s; the handshake's deadline is 10 minutes away.
    expect(await srv.shutdown(5000)).toEqual({ clean: true, cut: 0 });
    await closed(silent);
  });
});
