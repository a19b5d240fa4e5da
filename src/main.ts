#!/usr/bin/env node
/**
 * Service entry point: `node dist/src/main.js [--config PATH]` (default ./config.json).
 * Exit codes: 0 clean shutdown (SIGTERM/SIGINT: everything in flight answered within
 * shutdownGraceMs), 1 startup check failed (config, targets, live check, trust roots, the store),
 * or requests had to be cut at shutdown.
 */
import { pino } from 'pino';
import { loadConfig } from './config/load.js';
import { isVerifierError } from './errors.js';
import { bootstrap } from './bootstrap.js';
import { poseidon8KernelName, poseidon8KernelReason } from './hash/kernel.js';

const USAGE = `usage: oracle-verifier-server [--config PATH]

Starts the verification backend. PATH defaults to ./config.json (read from the working directory).`;

function parseArgs(argv: string[]): { config: string } {
  let config = 'config.json';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a === '--config' || a === '-c') {
      const v = argv[++i];
      if (!v) {
        process.stderr.write(`--config needs a path\n${USAGE}\n`);
        process.exit(1);
      }
      config = v;
    } else if (a.startsWith('--config=')) config = a.slice('--config='.length);
    else {
      process.stderr.write(`unknown argument ${JSON.stringify(a)}\n${USAGE}\n`);
      process.exit(1);
    }
  }
  return { config };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let config;
  try {
    config = loadConfig(args.config);
  } catch (e) {
    process.stderr.write(`${isVerifierError(e) ? e.message : String(e)}\n`);
    process.exit(1);
  }
  const log = pino({ level: config.logLevel });
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
    process.exit(1);
  }
  const s = started;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    closing = true;
    log.info({ signal, shutdownGraceMs: config.shutdownGraceMs }, 'shutting down: abandoning upstream requests, answering the requests in flight');
    s.shutdown().then(
      ({ clean, cut }) => {
        if (clean) log.info('shut down: every request in flight answered');
        else log.warn({ cut }, `shutdown grace period of ${config.shutdownGraceMs} ms over: ${cut} request(s) cut`);
        process.exit(clean ? 0 : 1);
      },
      (e: unknown) => {
        log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const address = await s.app.listen({ port: config.port, host: config.host });
  log.info({ address, tls: Boolean(config.tls) }, 'verifier listening');
  log.info({ backend: poseidon8KernelName, reason: poseidon8KernelReason }, 'Poseidon8 hash kernel');
}

void main();
