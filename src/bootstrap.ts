/**
 * Startup: config → targets (configured, or from the reproducible build) → ledger live check →
 * trust roots → verification service → Fastify app. Each step fails with a VerifierError whose
 * message is printed as is by main.ts.
 */
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { needsReproducibleBuild } from './config/load.js';
import { DEFAULT_TRUST_ROOTS } from './config/packageRoot.js';
import { VerifierError } from './errors.js';
import type { ConfigCode } from './config/errors.js';
import { loadTrustRoot } from './attestation/trustRoots.js';
import { ChainCache } from './attestation/x509/chainCache.js';
import { createCollateralSource } from './collateral/source.js';
import { runReproducibleBuild } from './startup/reproducibleBuild.js';
import { liveCheck } from './startup/liveCheck.js';
import { buildApp } from './server/app.js';
import { buildInfoRecord, liveCheckProgramName } from './server/info.js';
import { createInProcessService } from './verify/service.js';
import type { Policy, VerifierService } from './verify/types.js';
import { VerifierPool } from './pool/pool.js';
import { createMetrics, instrumentService } from './server/metrics.js';
import { LRUCache } from 'lru-cache';
import { hex } from './bytes.js';

export interface Targets {
  uniqueId: Uint8Array;
  pcrs: Uint8Array[];
  source: 'config' | 'reproducible-build';
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
}

export async function resolveTargets(config: Config, log: Logger): Promise<Targets> {
  if (!needsReproducibleBuild(config)) {
    return { uniqueId: config.uniqueIdTarget!, pcrs: config.pcrValuesTarget!, source: 'config' };
  }
  log.info({ script: config.reproducibleBuildScript }, 'targets incomplete in config: running the reproducible build');
  const r = await runReproducibleBuild({ script: config.reproducibleBuildScript, cwd: process.cwd(), timeoutMs: config.reproducibleBuildTimeoutMs });
  log.info({ uniqueId: hex(r.uniqueId), pcrs: r.pcrs.map(hex) }, 'targets from the reproducible build');
  return { uniqueId: r.uniqueId, pcrs: r.pcrs, source: 'reproducible-build' };
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
    uniqueIdMapping: lc.uniqueIdMapping,
    pcrValuesMapping: lc.pcrValuesMapping,
    timeoutMs: lc.timeoutMs,
    expected: { uniqueId: targets.uniqueId, pcrs: targets.pcrs },
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
  const roots = {
    // A typeA root must be valid at the typeA verification time (the clock unless fixed).
    typeA: loadTrustRoot('typeA', config.trustedRoots.typeA, {
      pinned: config.trustedRoots.typeA === DEFAULT_TRUST_ROOTS.typeA,
      ...(config.verificationTime !== undefined ? { now: config.verificationTime } : {}),
    }),
    typeB: loadTrustRoot('typeB', config.trustedRoots.typeB, { pinned: config.trustedRoots.typeB === DEFAULT_TRUST_ROOTS.typeB }),
  };
  log.info({ typeA: roots.typeA.subjectText, typeA_sha256: roots.typeA.fingerprint256, typeB: roots.typeB.subjectText, typeB_sha256: roots.typeB.fingerprint256 }, 'trust roots loaded');
  const policy: Policy = {
    uniqueIdTarget: targets.uniqueId,
    pcrValuesTarget: targets.pcrs,
    acceptedTcbStatuses: config.acceptedTcbStatuses,
    ...(config.acceptedAdvisories !== undefined ? { acceptedAdvisories: config.acceptedAdvisories } : {}),
    allowDebugEnclaves: config.allowDebugEnclaves,
  };
  // With a fixed verification time the verifier behaves as if it were that time, also for the
  // freshness of cached collateral.
  const clock = config.verificationTime !== undefined ? () => config.verificationTime! : Date.now;
  const metrics = createMetrics();
  const sink = metrics.sink;
  // typeA collateral: from the collateral directory when configured (the PCCS serves only the
  // pieces it lacks), else from the PCCS.
  const { source: collateral, pccs } = createCollateralSource({
    root: roots.typeA,
    now: clock,
    pccsUrl: config.pccsUrl,
    ...(config.collateralDir !== undefined ? { collateralDir: config.collateralDir, dirSetting: 'collateralDir' } : {}),
    onPccsRequest: (route, status, ms) => sink.observeUpstream('pccs', route, status, ms / 1000),
  });
  if (config.collateralDir !== undefined) log.info({ collateralDir: config.collateralDir, pccsUrl: config.pccsUrl }, 'typeA collateral from the collateral directory; the PCCS only for what it lacks');
  if (pccs) for (const c of pccs.caches()) sink.registerCacheStats(`collateral_${c.name}`, () => pccs.caches().find((x) => x.name === c.name)!);
  let service: VerifierService;
  let pool: VerifierPool | undefined;
  if (config.workers > 0) {
    pool = new VerifierPool({
      threads: config.workers,
      maxQueue: config.maxQueue,
      taskTimeoutMs: config.taskTimeoutMs,
      collateral,
      onTaskDone: (seconds) => sink.observePoolTask(seconds),
      setup: {
        policy: { ...policy, pcrValuesTarget: [...policy.pcrValuesTarget], acceptedTcbStatuses: [...policy.acceptedTcbStatuses] },
        roots: { typeA: roots.typeA.der, typeB: roots.typeB.der },
        ...(config.verificationTime !== undefined ? { typeATime: config.verificationTime } : {}),
      },
    });
    service = pool;
    const p = pool;
    sink.registerPoolStats(() => p.stats());
  } else {
    const chainCache = new ChainCache();
    sink.registerCacheStats('x509_chain', () => ({ hits: chainCache.hits, misses: chainCache.misses, size: chainCache.size }));
    service = createInProcessService(policy, {
      roots,
      collateral,
      chainCache,
      keyCache: new LRUCache({ max: 1024 }),
      ...(config.verificationTime !== undefined ? { typeATime: config.verificationTime } : {}),
    });
  }
  const info = buildInfoRecord(targets, liveCheckProgramName(config.liveCheck.contractName), Date.now());
  const app = await buildApp({
    service: instrumentService(service, sink),
    metrics,
    info,
    bodyLimit: config.bodyLimit,
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger === false ? false : { level: config.logLevel } }),
    ...(tls ? { https: tls } : {}),
  });
  if (pool) {
    const p = pool;
    app.addHook('onClose', async () => p.close());
  }
  return { app, targets, ...(pool ? { pool } : {}) };
}
