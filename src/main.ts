#!/usr/bin/env node
/**
 * Service entry point: `node dist/src/main.js [--config PATH] [--port N]` (default ./config.json).
 * The listening port: `--port`, else the environment variable PORT, else the config's `port`.
 *
 * Exit codes: 0 clean shutdown (SIGTERM/SIGINT: everything in flight answered within
 * shutdownGraceMs); 1 startup check failed (config values, targets, live check, trust roots, the
 * store), or requests had to be cut at shutdown; 2 usage error (unknown option, a --config file
 * that cannot be read, a bad --port or PORT, a port in use or not permitted), as the CLI's.
 */
import { pino } from 'pino';
import { loadConfig } from './config/load.js';
import { isVerifierError } from './errors.js';
import { bootstrap } from './bootstrap.js';
import { poseidon8KernelName, poseidon8KernelReason } from './hash/kernel.js';
import { bhpBackendName, bhpBackendReason } from './hash/bhp/backend.js';
import { LogSink } from './observability/logSink.js';

const USAGE = `usage: oracle-verifier-server [--config PATH] [--port N]

Starts the verification backend.
  --config PATH, -c PATH  the configuration file (default ./config.json, read from the working directory)
  --port N, -p N          the listening port, 0-65535 (0: any free port); overrides the environment
                          variable PORT, which overrides the config's port
  --help, -h              this text`;

const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

/** A usage error: one line saying what is wrong, then the usage; exit 2. */
function usageError(message: string): never {
  process.stderr.write(`oracle-verifier-server: ${message}\n\n${USAGE}\n`);
  process.exit(EXIT.USAGE);
}

type PortSource = '--port' | 'PORT';

function portNumber(value: string, source: PortSource): number {
  const n = /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535)) usageError(`${source} must be a port number 0-65535, got ${JSON.stringify(value)}`);
  return n;
}

interface Args {
  config: string;
  port?: { value: number; source: PortSource };
}

function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Args {
  let config = 'config.json';
  let port: Args['port'];
  const value = (i: number, name: string, what: string): string => {
    const v = argv[i];
    if (v === undefined || v === '') usageError(`${name} needs ${what}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(EXIT.OK);
    } else if (a === '--config' || a === '-c') config = value(++i, a, 'a path');
    else if (a.startsWith('--config=')) config = a.slice('--config='.length) || usageError('--config needs a path');
    else if (a === '--port' || a === '-p') port = { value: portNumber(value(++i, a, 'a port number'), '--port'), source: '--port' };
    else if (a.startsWith('--port=')) port = { value: portNumber(a.slice('--port='.length), '--port'), source: '--port' };
    else usageError(`unknown ${a.startsWith('-') ? 'option' : 'argument'} ${JSON.stringify(a)}`);
  }
  if (port === undefined && env.PORT !== undefined && env.PORT !== '') port = { value: portNumber(env.PORT, 'PORT'), source: 'PORT' };
  return { config, ...(port ? { port } : {}) };
}

/** Why the server cannot listen, as one line naming the port and how to choose another. */
function listenFailure(e: unknown, port: number, host: string): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  const other = 'set PORT or --port to another port';
  if (code === 'EADDRINUSE') return `error: port ${port} is in use; ${other}`;
  if (code === 'EACCES') return `error: port ${port} is not permitted to this user (ports below 1024 need privileges); ${other}`;
  if (code === 'EADDRNOTAVAIL') return `error: address ${host} is not an address of this machine; set host in the config`;
  return `error: cannot listen on ${host} port ${port}: ${(e as Error)?.message ?? String(e)}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), process.env);
  let config;
  try {
    config = loadConfig(args.config);
  } catch (e) {
    process.stderr.write(`${isVerifierError(e) ? e.message : String(e)}\n`);
    // A --config file that cannot be read is a usage error; a config that is wrong is a failed check.
    process.exit(isVerifierError(e) && e.code === 'CONFIG_NOT_FOUND' ? EXIT.USAGE : EXIT.FAILED);
  }
  if (args.port) config.port = args.port.value;
  // stdout as opened by Node (a pipe becomes non-blocking), written by a sink that never blocks the
  // loop or the exit on a stalled reader (src/observability/logSink.ts).
  const log = pino({ level: config.logLevel }, new LogSink(process.stdout.fd ?? 1));
  let started;
  try {
    started = await bootstrap(config, log, { loggerInstance: log });
  } catch (e) {
    if (isVerifierError(e)) {
      log.fatal({ code: e.code }, e.message);
      process.stderr.write(`startup failed: ${e.message}\n`);
    } else {
      log.fatal({ err: e }, 'startup failed');
      process.stderr.write(`startup failed: ${String(e)}\n`);
    }
    process.exit(EXIT.FAILED);
  }
  const s = started;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(EXIT.FAILED);
    }
    closing = true;
    log.info({ signal, shutdownGraceMs: config.shutdownGraceMs }, 'shutting down: abandoning upstream requests, answering the requests in flight');
    // Whatever else holds it up, the process ends soon after its grace period.
    setTimeout(() => {
      log.error({ signal }, `shutdown did not end within shutdownGraceMs (${config.shutdownGraceMs} ms): exiting`);
      process.exit(EXIT.FAILED);
    }, config.shutdownGraceMs + 1000).unref();
    s.shutdown().then(
      ({ clean, cut }) => {
        if (clean) log.info('shut down: every request in flight answered');
        else log.warn({ cut }, `shutdown grace period of ${config.shutdownGraceMs} ms over: ${cut} request(s) cut`);
        process.exit(clean ? EXIT.OK : EXIT.FAILED);
      },
      (e: unknown) => {
        log.error({ err: e }, 'shutdown failed');
        process.exit(EXIT.FAILED);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  let address: string;
  try {
    address = await s.app.listen({ port: config.port, host: config.host });
  } catch (e) {
    closing = true;
    await s.shutdown().catch(() => undefined);
    process.stderr.write(`${listenFailure(e, config.port, config.host)}\n`);
    process.exit(EXIT.USAGE);
  }
  log.info({ address, tls: Boolean(config.tls), ...(args.port ? { portFrom: args.port.source } : {}) }, 'verifier listening');
  log.info({ backend: poseidon8KernelName, reason: poseidon8KernelReason }, 'Poseidon8 hash kernel');
  log.info({ backend: bhpBackendName, reason: bhpBackendReason }, 'BHP hash backend (inclusion proofs)');
}

void main();
