/** Starts the real service (bootstrap + Fastify) on a loopback port for end-to-end tests. */
import type { FastifyInstance } from 'fastify';
import { resolveConfig, type Config } from '../../src/config/load.js';
import { bootstrap, type Logger } from '../../src/bootstrap.js';

export const silentLog = { info() {}, warn() {} };

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  config: Config;
  /** The startup PCCS probe (settles once it has an answer or gave up). */
  pccsProbe: Promise<void>;
  close(): Promise<void>;
}

export async function startServer(rawConfig: Record<string, unknown>, baseDir = process.cwd(), log: Logger = silentLog): Promise<RunningServer> {
  const config = resolveConfig({ port: 0, host: '127.0.0.1', workers: 0, liveCheck: { skip: true }, ...rawConfig }, baseDir);
  const { app, pccsProbe } = await bootstrap(config, log, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const scheme = config.tls ? 'https' : 'http';
  return { url: `${scheme}://127.0.0.1:${addr.port}`, app, config, pccsProbe, close: () => app.close() };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: r.status, body: parsed, headers: r.headers };
}
