/**
 * Startup: config → targets (configured, or from the reproducible build) → ledger live check →
 * the verifier graph (src/compose.ts: trust roots, policy, collateral, service, metrics) → Fastify app. Each step fails with a VerifierError whose
 * message is printed as is by main.ts. Then, in the background, one probe of the PCCS: a warning
 * when it does not answer (probePccsAtStartup).
 */
import { readSmallFile } from './smallFile.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { configuredTargets, MAX_CONFIG_FILE_BYTES } from './config/load.js';
import { VerifierError } from './errors.js';
import type { ConfigCode } from './config/errors.js';
import { runReproducibleBuild } from './startup/reproducibleBuild.js';
import { liveCheck } from './startup/liveCheck.js';
import { buildApp } from './server/app.js';
import { earSigningKey } from './upstream/credentials.js';
import { earSigner } from './ear/signer.js';
import { earIssuer, type EarIssuer } from './ear/issuer.js';
import { policyDigest } from './verify/policy.js';
import { policyOf } from './compose.js';
import { buildInfoRecord, liveCheckProgramName } from './server/info.js';
import { VerifierPool } from './pool/pool.js';
import { createMetrics } from './observability/metrics.js';
import { composeVerifier } from './compose.js';
import { createLedgerFeature, followedPrograms } from './server/ledgerFeature.js';
import { KINDS, type ReportType, type TargetValues } from './verify/kinds/index.js';
import type { PccsStatusReport } from './collateral/pccsStatus.js';
import { ledgerNodeHeaders } from './upstream/credentials.js';
import { shutdownReason } from './upstream/serviceFetch.js';
import { Connections } from './server/shutdown.js';

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
    headers: ledgerNodeHeaders(lc.apiKeyHeader),
    expected: targets.values,
    accepted: config.acceptedBuilds,
    onAccepted: (a) => {
      log.warn(a, 'live check: the ledger program holds an accepted build, not the target (reports of either verify as valid)');
    },
  });
  log.info({ program: lc.contractName }, 'live check passed: the ledger program holds the target measurements or accepted builds');
}

function readTls(config: Config): { key: Buffer; cert: Buffer } | undefined {
  if (!config.tls) return undefined;
  const read = (key: 'tlsKey' | 'tlsCert', file: string) => {
    const r = readSmallFile(file, MAX_CONFIG_FILE_BYTES);
    if (!r.ok) throw new VerifierError<ConfigCode>('CONFIG_BAD_TLS', `config: ${key} = ${JSON.stringify(file)}: ${r.why}`);
    return r.bytes;
  };
  return { key: read('tlsKey', config.tls.keyFile), cert: read('tlsCert', config.tls.certFile) };
}

/**
 * One look at the PCCS at startup, in the background: readiness never waits for it. A PCCS that
 * does not answer is logged once, as a warning saying what will fail; one that answers, as info.
 * No PCCS configured (pccsUrl null): nothing to probe, nothing logged. The probe is the one of
 * GET /status/pccs (config.pccsProbeTimeoutMs, no retries), so that route shares its answer.
 */
export async function probePccsAtStartup(status: () => Promise<PccsStatusReport>, log: Logger, shutdown?: AbortSignal): Promise<void> {
  let s: PccsStatusReport;
  try {
    s = await status();
  } catch (e) {
    if (shutdown?.aborted) return;
    log.warn({ err: e instanceof Error ? e.message : String(e) }, 'PCCS probe at startup failed');
    return;
  }
  // A probe abandoned because the verifier shuts down (e.g. its port was in use) learnt nothing.
  if (shutdown?.aborted) return;
  if (!s.configured) return;
  if (s.reachable) {
    log.info({ pccsUrl: s.url, latencyMs: s.latencyMs }, 'PCCS reachable');
    return;
  }
  const what = s.collateralDir
    ? 'typeA collateral the collateral directory lacks cannot be fetched: such reports are answered unverifiable'
    : 'typeA reports are answered unverifiable until it answers (or set collateralDir to verify them offline)';
  log.warn({ pccsUrl: s.url, error: s.error, errorCode: s.errorCode }, `PCCS not reachable at startup (${s.error ?? 'no answer'}): ${what}`);
}

export interface Started {
  app: FastifyInstance;
  targets: Targets;
  pool?: VerifierPool;
  /** The startup PCCS probe (probePccsAtStartup), running in the background; never rejects. */
  pccsProbe: Promise<void>;
  /**
   * Bounded shutdown: abandons every PCCS and ledger-node request (their reports are answered
   * unverifiable, their lookups 502), stops accepting, answers the requests in flight, closes idle
   * and slow connections, stops the watcher and the pool. Resolves `clean: true` when all that
   * ended within `graceMs` (default config.shutdownGraceMs); else every connection still open is
   * closed and `cut` says how many requests were not answered.
   */
  shutdown(graceMs?: number): Promise<{ clean: boolean; cut: number }>;
}

/** The EAR issuer of EAR_SIGNING_KEY under this config's policy (none without the key; a bad key stops the start). */
async function earOf(config: Config, targets: Parameters<typeof policyOf>[1]): Promise<EarIssuer | undefined> {
  const key = earSigningKey();
  return key === undefined ? undefined : earIssuer(await earSigner(key), policyDigest(policyOf(config, targets)));
}

export async function bootstrap(config: Config, log: Logger, opts: { logger?: boolean; loggerInstance?: FastifyBaseLogger } = {}): Promise<Started> {
  const tls = readTls(config);
  const targets = await resolveTargets(config, log);
  await checkLive(config, targets, log);
  // Aborted at shutdown: every upstream request (PCCS, ledger node) in progress or later ends at once.
  const upstream = new AbortController();
  const { service, pool, metrics, pccsStatus } = composeVerifier(config, { targets: targets.values, metrics: createMetrics(), log, signal: upstream.signal });
  const info = buildInfoRecord(
    targets.values,
    liveCheckProgramName(config.liveCheck.contractName),
    Date.now(),
    config.liveCheck.apiBaseUrl !== undefined ? followedPrograms(config) : undefined,
    config.acceptedBuilds,
    config.watch !== undefined,
  );
  // The watcher and /ledger routes verify through the same (instrumented) service as /decodeReport.
  const decodeReports = service.decodeReports?.bind(service);
  const ledger = createLedgerFeature(config, (u, r, asOf) => service.decodeReport(u, r, asOf !== undefined ? { asOf } : {}), log, metrics.sink, { signal: upstream.signal, ...(decodeReports ? { verifyMany: decodeReports } : {}) });
  const ear = await earOf(config, targets.values);
  const app = await buildApp({
    service,
    ...(ear ? { ear } : {}),
    ledger: ledger.routes,
    pccsStatus,
    metrics,
    info,
    bodyLimit: config.bodyLimit,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    maxInflightBytes: config.maxInflightBytes,
    maxInflightBytesPerClient: config.maxInflightBytesPerClient,
    connections: { maxConnections: config.maxConnections, maxConnectionsPerClient: config.maxConnectionsPerClient, maxPipelined: config.maxPipelinedRequests },
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger === false ? false : { level: config.logLevel } }),
    ...(tls ? { https: tls } : {}),
  });
  app.addHook('onClose', async () => ledger.close());
  if (pool) {
    const p = pool;
    app.addHook('onClose', async () => p.close());
  }
  const connections = new Connections(app.server, Boolean(tls));
  // Fastify answers requests that arrive from now on 503; the rest is drained here.
  app.addHook('preClose', (done) => {
    const listening = app.server.listening;
    const { closed, inFlight } = connections.drain(config.requestTimeoutMs);
    // A server that never listened (its port in use) had nothing to stop accepting or answer.
    if (listening) log.info({ closedConnections: closed, inFlight }, 'shutting down: not accepting; answering the requests in flight');
    done();
  });
  let closing: Promise<{ clean: boolean; cut: number }> | undefined;
  const shutdown = (graceMs = config.shutdownGraceMs) =>
    (closing ??= (async () => {
      upstream.abort(shutdownReason());
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => {
        timer = setTimeout(() => r('late'), graceMs);
      });
      const ended = await Promise.race([app.close().then(() => 'closed' as const, () => 'failed' as const), late]);
      clearTimeout(timer);
      return ended === 'closed' ? { clean: true, cut: 0 } : { clean: false, cut: connections.destroyAll() };
    })());
  ledger.start();
  const pccsProbe = probePccsAtStartup(pccsStatus, log, upstream.signal);
  return { app, targets, ...(pool ? { pool } : {}), pccsProbe, shutdown };
}
