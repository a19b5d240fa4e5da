/**
 * A real nginx on loopback for the load-balancer test, configured from deploy/nginx.conf (the file
 * docker-compose.yml mounts) with only the container-specific lines replaced: the upstream
 * servers, the listen address, and the pid/log/temp paths. Every replacement must match the
 * template exactly as many times as expected, so the test breaks if the template drifts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { childEnv, MAIN } from './process.js';

export const NGINX_TEMPLATE = resolve(process.cwd(), 'deploy/nginx.conf');

/** The nginx binary: $NGINX_BIN, then PATH, then /usr/sbin/nginx (Debian's location). */
export function findNginx(): string | undefined {
  const candidates = [process.env.NGINX_BIN, ...(process.env.PATH ?? '').split(delimiter).map((d) => (d ? join(d, 'nginx') : undefined)), '/usr/sbin/nginx'];
  for (const c of candidates) {
    if (!c || !existsSync(c)) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* not executable */
    }
  }
  return undefined;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = a && typeof a !== 'string' ? a.port : 0;
      s.close(() => (port ? res(port) : rej(new Error('no port'))));
    });
  });
}

function replaceExactly(text: string, re: RegExp, count: number, by: (m: string, ...g: string[]) => string, what: string): string {
  const n = [...text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))].length;
  if (n !== count) throw new Error(`deploy/nginx.conf: expected ${count} × ${what} (${re}), found ${n}`);
  return text.replace(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`), by as (substring: string, ...args: unknown[]) => string);
}

/**
 * deploy/nginx.conf with the compose replicas replaced by `upstreams` (loopback ports, in order;
 * the server parameters of the template are kept), listening on 127.0.0.1:`listenPort`, with
 * pid, logs and temp files in `dir`.
 */
export function renderNginxConf(template: string, opts: { listenPort: number; upstreams: number[]; dir: string }): string {
  let c = template;
  let i = 0;
  const replicaLines = [...c.matchAll(/^\s*server\s+verifier-\d+:8080\b[^;]*;\s*$/gm)].length;
  if (replicaLines < opts.upstreams.length) throw new Error(`deploy/nginx.conf has ${replicaLines} replica lines, the test needs ${opts.upstreams.length}`);
  c = replaceExactly(c, /^(\s*)server\s+verifier-\d+:8080\b([^;]*);[ \t]*$/m, replicaLines, (_m, indent, params) => {
    const port = opts.upstreams[i++];
    return port === undefined ? `${indent}# (replica not used by the test)` : `${indent}server 127.0.0.1:${port}${params};`;
  }, 'upstream replica line');
  c = replaceExactly(c, /^(\s*)listen\s+8080;/m, 1, (_m, indent) => `${indent}listen 127.0.0.1:${opts.listenPort};`, 'listen 8080');
  c = replaceExactly(c, /^pid\s+\S+;/m, 1, () => `pid ${join(opts.dir, 'nginx.pid')};`, 'pid');
  c = replaceExactly(c, /^error_log\s+\S+\s+(\w+);/m, 1, () => `error_log ${join(opts.dir, 'error.log')} info;`, 'error_log');
  c = replaceExactly(c, /^(\s*)access_log\s+\S+\s+verifier;/m, 1, (_m, indent) => `${indent}access_log ${join(opts.dir, 'access.log')} verifier;`, 'access_log');
  c = replaceExactly(c, /^(\s*)(\w+_temp_path)\s+\/tmp\/nginx-([\w-]+);/m, 5, (_m, indent, key, name) => `${indent}${key} ${join(opts.dir, `temp-${name}`)};`, 'temp path');
  return c;
}

/** One line of the `verifier` access log format. */
export interface AccessLogEntry {
  time: string;
  request_id: string;
  method: string;
  uri: string;
  status: number;
  request_time: number;
  /** Upstreams tried, in order ("a, b" after a retry). */
  upstream: string;
  upstream_status: string;
  upstream_time: string;
}

export interface NginxProcess {
  child: ChildProcess;
  url: string;
  dir: string;
  accessLog(): AccessLogEntry[];
  errorLog(): string;
  stop(): Promise<void>;
}

function waitForPort(port: number, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  return new Promise((res, rej) => {
    const attempt = () => {
      if (child.exitCode !== null) return rej(new Error(`nginx exited with ${child.exitCode}\n${output()}`));
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        res();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > until) return rej(new Error(`nginx did not listen on ${port} within ${timeoutMs} ms\n${output()}`));
        setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Starts nginx in the foreground (`daemon off;`) on a config rendered from deploy/nginx.conf. */
export async function startNginx(bin: string, dir: string, opts: { listenPort: number; upstreams: number[] }): Promise<NginxProcess> {
  // As root, nginx workers run as `nobody`: they must be able to enter the directory.
  chmodSync(dir, 0o755);
  const confPath = join(dir, 'nginx.conf');
  writeFileSync(confPath, renderNginxConf(readFileSync(NGINX_TEMPLATE, 'utf8'), { ...opts, dir }));
  const child = spawn(bin, ['-p', `${dir}/`, '-c', confPath, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const errorLog = () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  try {
    await waitForPort(opts.listenPort, child, 60_000, () => `${out}\n${errorLog()}`);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    child,
    dir,
    url: `http://127.0.0.1:${opts.listenPort}`,
    accessLog: () =>
      readFileSync(join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as AccessLogEntry),
    errorLog,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null || child.signalCode !== null) return res();
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(t);
          res();
        });
        child.kill('SIGQUIT'); // graceful: finish in-flight requests, then exit
      }),
  };
}

/** A service replica (src/main.ts as its own process) whose log lines are kept, parsed. */
export interface Replica {
  child: ChildProcess;
  port: number;
  url: string;
  /** Parsed JSON log lines so far. */
  logs: Record<string, any>[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `node --import tsx src/main.ts --config <file>` and resolves once it listens. */
export function startReplica(configFile: string, timeoutMs = 180_000): Promise<Replica> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    const logs: Record<string, any>[] = [];
    let err = '';
    let done = false;
    child.stderr!.on('data', (d) => (err += d));
    const t = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      rej(new Error(`replica did not start within ${timeoutMs} ms\n${err}`));
    }, timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let rec: Record<string, any>;
      try {
        rec = JSON.parse(line);
      } catch {
        return;
      }
      logs.push(rec);
      if (!done && rec.msg === 'verifier listening' && typeof rec.address === 'string') {
        done = true;
        clearTimeout(t);
        const port = Number(new URL(rec.address).port);
        res({
          child,
          port,
          url: `http://127.0.0.1:${port}`,
          logs,
          stop: (signal = 'SIGTERM') =>
            new Promise<void>((r) => {
              if (child.exitCode !== null || child.signalCode !== null) return r();
              const k = setTimeout(() => child.kill('SIGKILL'), 10_000);
              child.once('exit', () => {
                clearTimeout(k);
                r();
              });
              child.kill(signal);
            }),
        });
      }
    });
    child.once('exit', (code, sig) => {
      if (done) return;
      done = true;
      clearTimeout(t);
      rej(new Error(`replica exited (${code ?? sig}) before listening\n${err}`));
    });
  });
}
