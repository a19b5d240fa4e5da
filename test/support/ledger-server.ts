/** The real service (bootstrap + Fastify) in-process with a ledger fixture, its log lines observable as events. */
import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { bootstrap } from '../../src/bootstrap.js';
import { resolveConfig } from '../../src/config/load.js';
import type { LedgerFixture } from './ledger-fixture.js';

export interface LogLine {
  level: 'info' | 'warn';
  msg: string;
  obj: Record<string, any>;
}

export interface LedgerServer {
  url: string;
  app: FastifyInstance;
  lines: LogLine[];
  /** Resolves with the first line (already logged or to come) that matches. */
  waitFor(pred: (l: LogLine) => boolean): Promise<LogLine>;
  get(path: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** `raw` is merged over the fixture's config (minted roots and targets, the fixture's verification time, no workers). */
export async function startLedgerServer(fx: LedgerFixture, dir: string, raw: Record<string, unknown>): Promise<LedgerServer> {
  const lines: LogLine[] = [];
  const ee = new EventEmitter();
  const push = (level: LogLine['level']) => (obj: object | string, msg?: string) => {
    const l: LogLine = typeof obj === 'string' ? { level, msg: obj, obj: {} } : { level, msg: msg ?? '', obj: obj as Record<string, any> };
    lines.push(l);
    ee.emit('line', l);
  };
  const config = resolveConfig(
    { port: 0, host: '127.0.0.1', workers: 0, ...fx.env.config, verificationTime: fx.env.at, liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 2000 }, ...raw },
    dir,
  );
  const { app } = await bootstrap(config, { info: push('info'), warn: push('warn') }, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${addr.port}`;
  return {
    url,
    app,
    lines,
    waitFor: (pred) =>
      new Promise((resolve) => {
        const hit = lines.find(pred);
        if (hit) return resolve(hit);
        const on = (l: LogLine) => {
          if (!pred(l)) return;
          ee.off('line', on);
          resolve(l);
        };
        ee.on('line', on);
      }),
    async get(path) {
      const r = await fetch(`${url}${path}`);
      const text = await r.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: r.status, body };
    },
    close: () => app.close(),
  };
}
