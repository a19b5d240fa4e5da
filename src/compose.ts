/**
 * The composition root: from a Config (and the targets the front end resolved) it builds the
 * trust roots of every report kind, the oracle policy, the typeA collateral source, the
 * verification service — the worker pool when workers > 0, the in-process core otherwise — and
 * the metrics every verification counts in. The server (bootstrap.ts), the CLI (cli/context.ts)
 * and the benchmarks (through the CLI's verifier) call it; nothing else builds this graph.
 */
import { LRUCache } from 'lru-cache';
import type { Config } from './config/load.js';
import { DEFAULT_TRUST_ROOTS } from './config/defaultTrustRoots.js';
import { loadTrustRoot } from './attestation/trustRoots.js';
import type { Certificate } from './attestation/x509/certificate.js';
import { ChainCache } from './attestation/x509/chainCache.js';
import { createCollateralSource } from './collateral/source.js';
import { PccsStatus, pccsStatusReport, type PccsStatusReport } from './collateral/pccsStatus.js';
import { publicUrl } from './collateral/pccsClient.js';
import { PccsCircuit } from './collateral/pccsCircuit.js';
import { VerifierPool } from './pool/pool.js';
import { createMetrics, instrumentService, type Metrics } from './observability/metrics.js';
import { REPORT_KINDS, type ReportType } from './verify/kinds/index.js';
import { serviceFetch } from './upstream/serviceFetch.js';
import type { TcbUpdatePolicy } from './attestation/typeA/evaluationInForce.js';
import { CollateralArchive, type ArchivedDocument } from './collateral/archive.js';
import { HistoryCollateralSource } from './collateral/historySource.js';
import { pccsHeaders } from './upstream/credentials.js';
import { createInProcessService } from './verify/service.js';
import type { Policy, TargetValues, VerifierService } from './verify/types.js';

/** How long a verification worker reuses the collateral it was given for a platform (ms). */
export const COLLATERAL_REUSE_MS = 1000;

export interface ComposeOptions {
  /** Every kind's target (configured, or from the reproducible build). */
  targets: TargetValues;
  /** Fixed verification time (epoch ms) of the kinds verified against the clock; else config.verificationTime. */
  at?: number;
  /** Worker threads; else config.workers. */
  workers?: number;
  /**
   * Where typeA collateral comes from; else the config's collateralDir and pccsUrl. `archive`: the
   * collateral archive that judges reports as they stood at a past time (VerifyOptions.asOf); else
   * the config's collateralArchive.
   */
  collateral?: { collateralDir?: string; dirSetting?: string; pccsUrl?: string; archive?: { dir: string; policy: TcbUpdatePolicy } };
  /** The metrics to count in; a fresh registry (without process metrics) when absent. */
  metrics?: Metrics;
  log?: { info(obj: object, msg?: string): void };
  /** Ends every PCCS request, in progress or later (the server is shutting down). */
  signal?: AbortSignal;
}

export interface Composed {
  roots: Record<ReportType, Certificate>;
  policy: Policy;
  workers: number;
  /** The service every front end calls; each verification it runs counts in `metrics`. */
  service: VerifierService;
  pool?: VerifierPool;
  metrics: Metrics;
  /** The history collateral (a collateral archive), when one is configured: reports asked asOf a past time are judged with it. */
  history?: HistoryCollateralSource;
  /** Whether the PCCS is reachable (GET /status/pccs): probed when the last observation is older than config.pccsProbeMaxAgeMs. */
  pccsStatus(): Promise<PccsStatusReport>;
  close(): Promise<void>;
}

/** The oracle policy of a config with the given targets. */
export function policyOf(config: Config, targets: TargetValues): Policy {
  return {
    targets,
    ...(Object.keys(config.acceptedBuilds).length ? { acceptedBuilds: config.acceptedBuilds } : {}),
    acceptedTcbStatuses: config.acceptedTcbStatuses,
    ...(config.acceptedAdvisories !== undefined ? { acceptedAdvisories: config.acceptedAdvisories } : {}),
    allowDebugEnclaves: config.allowDebugEnclaves,
  };
}

/** The trust anchor of every kind; a kind verified against the clock needs its root valid at `at` (null: at no particular time). */
export function loadRoots(config: Config, at: number | undefined | null): Record<ReportType, Certificate> {
  const roots = {} as Record<ReportType, Certificate>;
  for (const kind of REPORT_KINDS) {
    const file = config.trustedRoots[kind.id];
    roots[kind.id] = loadTrustRoot(kind.id, file, {
      ...(file === DEFAULT_TRUST_ROOTS[kind.id] ? { pinnedSha256: kind.bundledRoot.sha256 } : {}),
      ...(at === null ? { now: null } : kind.usesVerificationTime && at !== undefined ? { now: at } : {}),
    });
  }
  return roots;
}

export function composeVerifier(config: Config, o: ComposeOptions): Composed {
  const at = o.at ?? config.verificationTime;
  const roots = loadRoots(config, at);
  o.log?.info(Object.fromEntries(REPORT_KINDS.flatMap((k) => [[k.id, roots[k.id].subjectText], [`${k.id}_sha256`, roots[k.id].fingerprint256]])), 'trust roots loaded');
  const policy = policyOf(config, o.targets);
  const metrics = o.metrics ?? createMetrics({ defaultMetrics: false });
  const sink = metrics.sink;
  // With a fixed verification time the verifier behaves as if it were that time, also for the
  // freshness of cached collateral.
  const clock = at !== undefined ? () => at : Date.now;
  const where = o.collateral ?? {
    ...(config.collateralDir !== undefined ? { collateralDir: config.collateralDir, dirSetting: 'collateralDir' } : {}),
    ...(config.pccsUrl !== undefined ? { pccsUrl: config.pccsUrl } : {}),
  };
  let reachability: PccsStatus | undefined;
  // A PCCS that gave no answer is not asked again during a cool-down (real time, not `clock`).
  const pccsCircuit =
    where.pccsUrl !== undefined
      ? new PccsCircuit({
          cooldownMs: config.pccsCircuitCooldownMs,
          maxCooldownMs: config.pccsCircuitMaxCooldownMs,
          onOpen: (until, cooldownMs, reason) => {
            // A request abandoned at shutdown says nothing of the PCCS: neither counted nor logged.
            if (o.signal?.aborted) return;
            sink.observePccsCircuitOpen();
            o.log?.info({ pccsUrl: publicUrl(where.pccsUrl!), until: new Date(until).toISOString(), cooldownMs, reason }, 'PCCS circuit open: cold typeA verifications are unverifiable until the PCCS answers a probe');
          },
        })
      : undefined;
  // The collateral source (src/collateral: a collateral directory, a PCCS) of the kind with a collateral port.
  const collateralKind = REPORT_KINDS.find((k) => k.collateral !== undefined)!;
  // Reports judged as they stood at a past time (VerifyOptions.asOf) take the archive's collateral alone.
  const archive = where.archive ?? (o.collateral === undefined && config.collateralArchive !== undefined ? { dir: config.collateralArchive, policy: config.tcbUpdatePolicy } : undefined);
  // The archive keeps every document the PCCS serves (archive.ts verifies each first), and the
  // history source asks the PCCS for the evaluations it lacks: judged at their time without an
  // archive prepared by hand (docs/history.md).
  // An archive filled as it goes (a PCCS or a collateral directory feeds it) is created when missing; one read alone must exist.
  const archived = archive ? CollateralArchive.open(archive.dir, roots[collateralKind.id], { create: where.pccsUrl !== undefined || where.collateralDir !== undefined }) : undefined;
  const keep = archived
    ? (d: ArchivedDocument) => {
        try {
          const r = archived.add(d);
          if (r.added) o.log?.info({ kind: r.kind, key: r.key }, 'collateral archived');
        } catch (e) {
          o.log?.info({ kind: d.kind, err: e instanceof Error ? e.message : String(e) }, 'collateral not archived: it does not verify to the pinned root');
        }
      }
    : undefined;
  const { source: collateral, pccs, client } = createCollateralSource({
    ...(keep ? { onFetched: keep } : {}),
    root: roots[collateralKind.id],
    now: clock,
    ...where,
    // The PCCS's key (PCCS_API_KEY) and the pccsUrl's query go to the PCCS only.
    ...(where.pccsUrl !== undefined ? { fetchImpl: serviceFetch(where.pccsUrl, { headers: pccsHeaders(), ...(o.signal ? { signal: o.signal } : {}) }) } : {}),
    ...(pccsCircuit ? { pccsCircuit } : {}),
    onPccsRequest: (route, status, ms, detail) => {
      sink.observeUpstream('pccs', route, status, ms / 1000);
      reachability?.observe(route, status, ms, detail);
    },
  });
  const history =
    archive && archived
      ? new HistoryCollateralSource(archived, roots[collateralKind.id], archive.policy, {
          ...(client ? { fetcher: client } : {}),
          onArchived: (kind, key) => o.log?.info({ kind, key }, 'collateral archived'),
        })
      : undefined;
  if (client) {
    const c = client;
    reachability = new PccsStatus({
      baseUrl: c.baseUrl,
      maxAgeMs: config.pccsProbeMaxAgeMs,
      probe: () => c.probe(config.pccsProbeTimeoutMs),
      ...(pccsCircuit ? { circuit: pccsCircuit } : {}),
    });
    const r = reachability;
    sink.registerPccsUp(() => {
      void r.refresh();
      return r.last?.reachable;
    });
  }
  if (where.collateralDir !== undefined) {
    o.log?.info({ collateralDir: where.collateralDir, pccsUrl: client ? publicUrl(client.baseUrl) : null }, client ? 'typeA collateral from the collateral directory; the PCCS only for what it lacks' : 'typeA collateral from the collateral directory alone (no PCCS)');
  }
  if (pccs) for (const c of pccs.caches()) sink.registerCacheStats(`collateral_${c.name}`, () => pccs.caches().find((x) => x.name === c.name)!);
  const workers = o.workers ?? config.workers;
  let service: VerifierService;
  let pool: VerifierPool | undefined;
  if (workers > 0) {
    pool = new VerifierPool({
      threads: workers,
      maxQueue: config.maxQueue,
      taskTimeoutMs: config.taskTimeoutMs,
      resourceLimits: { maxYoungGenerationSizeMb: config.workerYoungGenerationMb },
      ...(history
        ? {
            collateral: {
              rawForSubject: (subject) => (collateral ? collateral.rawForSubject(subject as never) : Promise.reject(collateralKind.collateral!.unavailable())),
              rawAsOf: (subject, time) => history.rawAsOf(subject as never, time),
            },
          }
        : collateral
          ? { collateral }
          : {}),
      // A worker reuses the collateral it was given for a platform for a second before asking the
      // main thread again (a refresh the main thread packs reaches every worker at its next task):
      // no round trip through the busy HTTP thread per typeA report (BENCHMARKS.md, HTTP load).
      collateralReuseMs: COLLATERAL_REUSE_MS,
      onTaskDone: (seconds) => sink.observePoolTask(seconds),
      onTaskStages: (stages) => sink.observePoolStages(stages),
      setup: {
        policy,
        roots: Object.fromEntries(REPORT_KINDS.map((k) => [k.id, roots[k.id].der])) as Record<ReportType, Uint8Array>,
        ...(at !== undefined ? { time: at } : {}),
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
      ...(collateral ? { collateral } : {}),
      chainCache,
      keyCache: new LRUCache({ max: 1024 }),
      ...(at !== undefined ? { time: at } : {}),
      ...(history ? { historyCollateral: history } : {}),
    });
  }
  const p = pool;
  return {
    roots,
    policy,
    workers,
    service: instrumentService(service, sink),
    ...(pool ? { pool } : {}),
    metrics,
    ...(history ? { history } : {}),
    pccsStatus: () => pccsStatusReport(reachability, where.collateralDir !== undefined),
    close: async () => {
      await p?.close();
    },
  };
}
