/**
 * Startup: config → targets (configured, or from the reproducible build) → ledger live check →
 * the verifier graph (src/compose.ts: trust roots, policy, collateral, service, metrics) → Fastify app. Each step fails with a VerifierError whose
 * message is printed as is by main.ts.
 */
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { configuredTargets } from './config/load.js';
import { VerifierError } from './errors.js';
import type { ConfigCode } from './config/errors.js';
import { runReproducibleBuild } from './startup/reproducibleBuild.js';
import { liveCheck } from './startup/liveCheck.js';
import { buildApp } from './server/app.js';
import { buildInfoRecord, liveCheckProgramName } from './server/info.js';
import { VerifierPool } from './pool/pool.js';
import { createMetrics } from './observability/metrics.js';
import { composeVerifier } from './compose.js';
import { createLedgerFeature } from './ledger/watch/feature.js';
import { KINDS, type ReportType, type TargetValues } from './verify/kinds/index.js';

export interface Targets {
  /** Every kind's target, by kind id. */
  values: TargetValues;
  source: 'config' | 'reproducible-build';
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
}

export async function resolveTargets(config: Config, log: Logger): Promise<Targets> {
  const configured = configuredTargets(config);
  if (configured) return { values: configured, source: 'config' };
  log.info({ script: config.reproducibleBuildScript }, 'targets incomplete in config: running the reproducible build');
  const r = await runReproducibleBuild({ script: config.reproducibleBuildScript, cwd: process.cwd(), timeoutMs: config.reproducibleBuildTimeoutMs });
  log.info(Object.fromEntries(KINDS.map((k) => [k.target.ledger.name, k.target.ledger.hex(r[k.id])])), 'targets from the reproducible build');
  return { values: r, source: 'reproducible-build' };
}

export async function checkLive(config: Config, targets: Targets, log: Logger): Promise<void> {
  const lc = config.liveCheck;
  if (lc.skip) {
    log.warn('liveCheck.skip is true: the targets are not compared with the ledger program');
    return;
  }
  await liveCheck({
    apiBaseUrl: lc.apiBaseUrl!,
    contractName: lc.contractName!,
    // Each kind's mapping is under its key in liveCheck (uniqueIdMapping, pcrValuesMapping).
    mappings: Object.fromEntries(KINDS.map((k) => [k.id, lc[k.target.ledger.mappingKey] as string])) as Record<ReportType, string>,
    timeoutMs: lc.timeoutMs,
    expected: targets.values,
  });
  log.info({ program: lc.contractName }, 'live check passed: the ledger program holds the target measurements');
}

function readTls(config: Config): { key: Buffer; cert: Buffer } | undefined {
  if (!config.tls) return undefined;
  const read = (key: 'tlsKey' | 'tlsCert', file: string) => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new VerifierError<ConfigCode>('CONFIG_BAD_TLS', `config: ${key} = ${JSON.stringify(file)}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  };
  return { key: read('tlsKey', config.tls.keyFile), cert: read('tlsCert', config.tls.certFile) };
}

export interface Started {
  app: FastifyInstance;
  targets: Targets;
  pool?: VerifierPool;
}

export async function bootstrap(config: Config, log: Logger, opts: { logger?: boolean; loggerInstance?: FastifyBaseLogger } = {}): Promise<Started> {
  const tls = readTls(config);
  const targets = await resolveTargets(config, log);
  await checkLive(config, targets, log);
  const { service, pool, metrics, pccsStatus } = composeVerifier(config, { targets: targets.values, metrics: createMetrics(), log });
  const info = buildInfoRecord(targets.values, liveCheckProgramName(config.liveCheck.contractName), Date.now());
  // The watcher and /ledger routes verify through the same (instrumented) service as /decodeReport.
  const ledger = createLedgerFeature(config, (u, r) => service.decodeReport(u, r), log, metrics.sink);
  const app = await buildApp({
    service,
    ledger: ledger.routes,
    pccsStatus,
    metrics,
    info,
    bodyLimit: config.bodyLimit,
    maxInflightBytes: config.maxInflightBytes,
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger === false ? false : { level: config.logLevel } }),
    ...(tls ? { https: tls } : {}),
  });
  app.addHook('onClose', async () => ledger.close());
  if (pool) {
    const p = pool;
    app.addHook('onClose', async () => p.close());
  }
  ledger.start();
  return { app, targets, ...(pool ? { pool } : {}) };
}
