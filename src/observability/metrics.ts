/**
 * Prometheus metrics: one prom-client Registry per service instance (never the global one), a
 * Fastify plugin that times every request by route template and serves GET /metrics, and a small
 * `MetricsSink` that the verification service, the worker pool, the caches and the upstream
 * clients (PCCS, ledger node) report into. Nothing here knows about verification internals: the
 * sink is the whole contract.
 *
 * Label rules (cardinality stays bounded whatever clients send):
 * - `route` is the matched route template (`request.routeOptions.url`), `unmatched` otherwise;
 *   the raw URL is never used.
 * - `method` is one of the HTTP methods Fastify routes, `OTHER` otherwise.
 * - failure `code` must be a declared error code (src/errorCodes.ts), `OTHER` otherwise.
 *
 * The per-request metrics (HTTP, verification, hash, pool task and stages) are observed through an
 * ObservationBatch (observationBatch.ts): pushed onto arrays, handed to prom-client before every
 * read and every 256 observations, so that a request costs the HTTP thread no label hashing.
 */
import { isErrorCode, outcomeFor, type ErrorCode, type Outcome } from '../errorCodes.js';
import { isVerifierError } from '../errors.js';
import perfHooks from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReportAnswer, ReportTexts, VerificationFacts, VerifierService, VerifyOutcome } from '../verify/types.js';
import type { ReportCheck } from '../verify/types.js';
import { REPORT_TYPES, type ReportType } from '../verify/kinds/index.js';
import { poseidon8KernelName } from '../hash/kernel.js';
import { BHP_BACKEND_ENV, bhpBackendName } from '../hash/bhp/backend.js';
import { ObservationBatch, type Series } from './observationBatch.js';

export const METRICS_PREFIX = 'verifier_';

export type VerificationKind = ReportType | 'unknown';
export type UpstreamService = 'pccs' | 'ledger';

export interface PoolStats {
  /** Tasks waiting for a worker. */
  queueSize: number;
  /** Fraction of worker capacity in use, 0..1 (share of the workers' time spent on tasks since start). */
  utilization: number;
  /** Worker threads alive. */
  threads: number;
  /** Reports verified in a batch task shared with other single reports since start (every worker was busy). */
  coalesced?: number;
}

export interface CacheStats {
  /** Cumulative hits since the cache was created. */
  hits: number;
  /** Cumulative misses since the cache was created. */
  misses: number;
  /** Entries held now. */
  size: number;
}

/** Where one pool task's time went (the pool's TaskStages, src/pool/stages.ts). */
export interface PoolTaskStages {
  /** Submission → a worker took the task up. */
  queueWaitSeconds: number;
  /** The worker took it up → its result. */
  runSeconds: number;
  /** Time the worker waited for the main thread's collateral (absent: it did not ask). */
  collateralWaitSeconds?: number;
  /** GC pauses of the worker's thread since its previous result. */
  gcPauses: readonly number[];
}

/** What the rest of the service reports into. All methods are cheap and never throw. */
export interface MetricsSink {
  /**
   * One decode-and-verify: report kind, verdict, failure code when not valid, wall time. The
   * `outcome` label is the code's (src/errorCodes.ts): valid, invalid or unverifiable.
   */
  observeVerification(kind: VerificationKind, valid: boolean, code: ErrorCode | undefined, seconds: number): void;
  /** Pushes the pool's current figures (alternative to registerPoolStats). */
  setPoolStats(stats: PoolStats): void;
  /** Pulls the pool's figures at each scrape; replaces pushed figures. */
  registerPoolStats(read: () => PoolStats): void;
  /** One pool task, from submission to result (includes queueing). */
  observePoolTask(seconds: number): void;
  /** The stages of one pool task: queue wait, worker run time, collateral wait, the worker's GC pauses. */
  observePoolStages(stages: PoolTaskStages): void;
  /** Registers a cache read at each scrape; `read` returns cumulative hits/misses and the current size. */
  registerCacheStats(name: string, read: () => CacheStats): void;
  /**
   * One upstream request. `route` is the request path relative to the service base (`pckcrl?ca=processor`,
   * `qe/identity`) or an absolute URL; the label keeps the path only (`/pckcrl`, `/qe/identity`), so
   * callers must not put identifiers in the path itself. Status: the HTTP status or `error` (no response).
   * Fits PccsClientOptions.onRequest: `(route, status, ms) => sink.observeUpstream('pccs', route, status, ms / 1000)`.
   */
  observeUpstream(service: UpstreamService, route: string, status: number | 'error', seconds: number): void;
  /** One Poseidon8 hash of a userData struct. */
  observeHash(seconds: number): void;
  /** One ledger update newly stored by the watcher: report kind, outcome (valid / invalid / unverifiable), failure code. */
  observeLedgerUpdate(kind: string, outcome: Outcome, code: ErrorCode | undefined): void;
  /** One re-verification of an unverifiable stored update, by report kind, new outcome and failure code. */
  observeLedgerRetry(kind: string, outcome: Outcome, code: ErrorCode | undefined): void;
  /**
   * One stored record of a transition that is no plain update of a known program: an update from a
   * transition the program registry does not name (`unrecognized`), or a write of oracle data with
   * no report (`unattested`), by program and function: the caller passes labels from a closed set
   * (ProgramRegistry.metricLabels: the registry's names, else `other`).
   */
  observeLedgerWrite(what: 'unrecognized' | 'unattested', program: string, fn: string): void;
  /** Reads the watcher's scanned and tip heights at each scrape (null: not known yet); the two gauges exist from the first call on. */
  registerLedgerHeights(read: () => { scannedHeight: number | null; tipHeight: number | null }): void;
  /** Reads the mapping cross-check's keys by status at each scrape (README "Ledger"). */
  registerLedgerMapping(read: () => { consistent: number; inconsistent: number; notChecked: number }): void;
  /** Reads the last completeness result at each scrape (docs/completeness.md; undefined: never checked). */
  registerLedgerCompleteness(read: () => { status: 'complete' | 'incomplete' | 'not_checked'; unexplainedCount: number } | undefined): void;
  /** Reads whether the PCCS is reachable at each scrape (undefined: not observed yet). */
  registerPccsUp(read: () => boolean | undefined): void;
  /** The PCCS circuit breaker opened (after a request without answer, or a failed probe). */
  observePccsCircuitOpen(): void;
}

/** A sink that drops everything: for callers (CLI, tests) that run without metrics. */
export const NOOP_METRICS_SINK: MetricsSink = {
  observeVerification() {},
  setPoolStats() {},
  registerPoolStats() {},
  observePoolTask() {},
  observePoolStages() {},
  registerCacheStats() {},
  observeUpstream() {},
  observeHash() {},
  observeLedgerUpdate() {},
  observeLedgerRetry() {},
  observeLedgerWrite() {},
  registerLedgerHeights() {},
  registerLedgerMapping() {},
  registerLedgerCompleteness() {},
  registerPccsUp() {},
  observePccsCircuitOpen() {},
};

export interface Metrics {
  registry: Registry;
  sink: MetricsSink;
  /** One answered HTTP request: route template (undefined: no route matched), method, status, seconds (GET /metrics itself is not counted). */
  observeHttp(route: string | undefined, method: string, statusCode: number, seconds: number): void;
  /** Reads the server's open connections and the connections its bounds closed, at each scrape (src/server/connectionLimits.ts). */
  registerConnections(read: () => ConnectionStats): void;
}

/** Why the server closed a connection by a bound (src/server/connectionLimits.ts). */
export type ConnectionRefusal = 'max_connections' | 'max_connections_per_client' | 'pipelined';

export interface ConnectionStats {
  /** Connections open now. */
  open: number;
  /** Connections closed by a bound so far, by bound. */
  refused: Record<ConnectionRefusal, number>;
}

export interface MetricsOptions {
  /** Collect prom-client's default process metrics (CPU, memory, GC, event-loop lag), prefixed `verifier_`. Default true. */
  defaultMetrics?: boolean;
  /** Constant labels added to every series (e.g. `{ replica: 'verifier-1' }`). */
  labels?: Record<string, string>;
}

/** Upper bounds (s) of the request and task latency histograms. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HASH_BUCKETS = [0.00002, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05];
/** Stages of a pool task: from 50 µs (a hand-over between threads) up. */
const STAGE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Sampling period of the event-loop delay histogram (prom-client default: 10 ms). */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** The event-loop metrics of prom-client's default set, replaced by eventLoopLag() under the same names. */
const EVENT_LOOP_METRICS = ['lag', 'lag_min', 'lag_max', 'lag_mean', 'lag_stddev', 'lag_p50', 'lag_p90', 'lag_p99'].map((n) => `nodejs_eventloop_${n}_seconds`);

/**
 * Event-loop delay, honestly: perf_hooks' histogram records the time between two ticks of its
 * sampling timer, which is the sampling period plus the delay, so an idle loop sampled every
 * 100 ms reads 0.100 s (prom-client reports it as is). What the loop delayed is the time beyond
 * the period: every statistic but the spread is reported minus `resolutionMs` (never below 0).
 * The histogram restarts at each scrape, so each scrape reports the interval since the previous
 * one; `nodejs_eventloop_lag_seconds` is the delay of one setImmediate at scrape time (as in
 * prom-client: reported by the next scrape). Names and help as prom-client's.
 */
function eventLoopLag(registry: Registry, prefix: string, resolutionMs: number): void {
  const h = perfHooks.monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  const period = resolutionMs * 1e6;
  const beyond = (ns: number): number => (Number.isFinite(ns) && ns > period ? (ns - period) / 1e9 : 0);
  const registers = [registry];
  const g = (suffix: string, help: string) => new Gauge({ name: `${prefix}nodejs_eventloop_${suffix}_seconds`, help, registers });
  const lag = new Gauge({
    name: `${prefix}nodejs_eventloop_lag_seconds`,
    help: 'Lag of event loop in seconds (one setImmediate, measured at the previous scrape).',
    registers,
    collect() {
      const t0 = process.hrtime.bigint();
      setImmediate(() => lag.set(Number(process.hrtime.bigint() - t0) / 1e9));
      const n = h.count;
      min.set(n ? beyond(h.min) : 0);
      max.set(n ? beyond(h.max) : 0);
      mean.set(n ? beyond(h.mean) : 0);
      stddev.set(n ? h.stddev / 1e9 : 0);
      p50.set(n ? beyond(h.percentile(50)) : 0);
      p90.set(n ? beyond(h.percentile(90)) : 0);
      p99.set(n ? beyond(h.percentile(99)) : 0);
      h.reset();
    },
  });
  const min = g('lag_min', `The minimum recorded event loop delay (beyond the ${resolutionMs} ms sampling period).`);
  const max = g('lag_max', `The maximum recorded event loop delay (beyond the ${resolutionMs} ms sampling period).`);
  const mean = g('lag_mean', `The mean of the recorded event loop delays (beyond the ${resolutionMs} ms sampling period).`);
  const stddev = g('lag_stddev', 'The standard deviation of the recorded event loop delays.');
  const p50 = g('lag_p50', `The 50th percentile of the recorded event loop delays (beyond the ${resolutionMs} ms sampling period).`);
  const p90 = g('lag_p90', `The 90th percentile of the recorded event loop delays (beyond the ${resolutionMs} ms sampling period).`);
  const p99 = g('lag_p99', `The 99th percentile of the recorded event loop delays (beyond the ${resolutionMs} ms sampling period).`);
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const CACHE_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;
const ROUTE_RE = /^\/[A-Za-z0-9_./:{}-]{0,127}$/;
const KINDS = new Set<VerificationKind>([...REPORT_TYPES, 'unknown']);

/** `pckcrl?ca=x` → `/pckcrl`; `https://host/a/b?q` → `/a/b`; anything else unusual → `other`. */
function routeLabel(route: string): string {
  let path = route;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(route)) {
    try {
      path = new URL(route).pathname;
    } catch {
      return 'other';
    }
  }
  path = path.split('?')[0] ?? '';
  if (!path.startsWith('/')) path = `/${path}`;
  return ROUTE_RE.test(path) ? path : 'other';
}

const finite = (x: number) => (Number.isFinite(x) && x >= 0 ? x : 0);

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.labels) registry.setDefaultLabels(opts.labels);
  // Event-loop delay is sampled by a timer on the HTTP thread: every 100 ms, not prom-client's
  // default 10 ms, so that an idle or lightly loaded verifier is not woken 100 times a second;
  // eventLoopLag() reports the delay beyond that period. prom-client's own event-loop metrics
  // (which include the period) are replaced, and its unused histogram ticks once an hour.
  if (opts.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX, eventLoopMonitoringPrecision: 3_600_000 });
    for (const name of EVENT_LOOP_METRICS) registry.removeSingleMetric(`${METRICS_PREFIX}${name}`);
    eventLoopLag(registry, METRICS_PREFIX, EVENT_LOOP_SAMPLE_MS);
  }
  const registers = [registry];
  const p = (n: string) => `${METRICS_PREFIX}${n}`;
  // The per-request metrics below are observed through one batch, handed over at each read.
  const batch = new ObservationBatch();
  const collect = batch.flush;

  // --- HTTP ---------------------------------------------------------------------------------
  const httpRequests = new Counter({ name: p('http_requests_total'), help: 'HTTP requests by route template, method and status code', labelNames: ['route', 'method', 'status_code'] as const, registers, collect });
  let connectionsRead: (() => ConnectionStats) | undefined;
  const refused = new Map<ConnectionRefusal, number>();
  new Gauge({
    name: p('http_connections_open'),
    help: 'HTTP connections open now (raw TCP, TLS handshakes included)',
    registers,
    collect() {
      if (connectionsRead) this.set(connectionsRead().open);
    },
  });
  new Counter({
    name: p('http_connections_refused_total'),
    help: 'Connections closed by a bound: max_connections and max_connections_per_client as they open, pipelined when a request arrived with maxPipelinedRequests answers of its connection outstanding',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      if (!connectionsRead) return;
      for (const [reason, n] of Object.entries(connectionsRead().refused) as [ConnectionRefusal, number][]) {
        const before = refused.get(reason) ?? 0;
        if (n > before) this.inc({ reason }, n - before);
        else this.inc({ reason }, 0);
        refused.set(reason, n);
      }
    },
  });
  const httpDuration = new Histogram({ name: p('http_request_duration_seconds'), help: 'HTTP request latency (receipt to response sent) by route template, method and status code', labelNames: ['route', 'method', 'status_code'] as const, buckets: LATENCY_BUCKETS, registers, collect });

  // --- verification -------------------------------------------------------------------------
  const verifications = new Counter({ name: p('verifications_total'), help: 'Report verifications by report kind and outcome (valid; invalid: a check failed on the evidence; unverifiable: the verifier could not decide, e.g. PCCS down, pool full)', labelNames: ['kind', 'outcome'] as const, registers, collect });
  const verificationFailures = new Counter({ name: p('verification_failures_total'), help: 'Reports not valid (invalid or unverifiable) by report kind and failure code', labelNames: ['kind', 'code'] as const, registers, collect });
  const verificationDuration = new Histogram({ name: p('verification_duration_seconds'), help: 'Decode-and-verify wall time by report kind and outcome', labelNames: ['kind', 'outcome'] as const, buckets: LATENCY_BUCKETS, registers, collect });
  const hashDuration = new Histogram({ name: p('hash_duration_seconds'), help: 'Poseidon8 hash time of one userData struct', buckets: HASH_BUCKETS, registers, collect });
  new Gauge({ name: p('hash_backend_info'), help: 'Poseidon8 kernel in use (native-adx, native, wasm or bigint; VERIFIER_HASH_BACKEND starts the choice at one), value 1', labelNames: ['backend'] as const, registers })
    .labels(poseidon8KernelName)
    .set(1);
  new Gauge({ name: p('bhp_backend_info'), help: `BHP implementation of the inclusion proofs (native or portable; ${BHP_BACKEND_ENV}=portable forces the portable one), value 1`, labelNames: ['backend'] as const, registers })
    .labels(bhpBackendName)
    .set(1);

  // --- pool ---------------------------------------------------------------------------------
  let poolStats: PoolStats = { queueSize: 0, utilization: 0, threads: 0 };
  let poolRead: (() => PoolStats) | undefined;
  const refreshPool = () => {
    if (!poolRead) return;
    try {
      poolStats = poolRead();
    } catch {
      /* keep the last figures */
    }
  };
  const poolQueue = new Gauge({ name: p('pool_queue_size'), help: 'Verification tasks waiting for a worker thread', registers, collect() { refreshPool(); this.set(finite(poolStats.queueSize)); } });
  const poolUtil = new Gauge({ name: p('pool_utilization'), help: 'Worker pool utilisation (0..1)', registers, collect() { this.set(finite(poolStats.utilization)); } });
  const poolThreads = new Gauge({ name: p('pool_threads'), help: 'Worker threads alive', registers, collect() { this.set(finite(poolStats.threads)); } });
  const poolTask = new Histogram({ name: p('pool_task_duration_seconds'), help: 'Pool task time from submission to result, queueing included', buckets: LATENCY_BUCKETS, registers, collect });
  const poolQueueWait = new Histogram({ name: p('pool_queue_wait_seconds'), help: 'Pool task time from submission until a worker takes it up', buckets: STAGE_BUCKETS, registers, collect });
  const poolRun = new Histogram({ name: p('pool_run_seconds'), help: 'Pool task time in the worker, from taking it up to its result (collateral wait included)', buckets: STAGE_BUCKETS, registers, collect });
  const collateralWait = new Histogram({ name: p('collateral_wait_seconds'), help: 'Time a worker waited for collateral from the main thread, per task that asked', buckets: STAGE_BUCKETS, registers, collect });
  const workerGc = new Histogram({ name: p('worker_gc_pause_seconds'), help: 'GC pauses of the verification worker threads (perf_hooks gc entries)', buckets: STAGE_BUCKETS, registers, collect });
  let coalescedSeen = 0;
  const poolCoalesced = new Counter({
    name: p('pool_coalesced_reports_total'),
    help: 'Reports verified in a worker task shared with other waiting single reports (every worker was busy), up to 4 a task',
    registers,
    collect() {
      refreshPool();
      const now = finite(poolStats.coalesced ?? 0);
      if (now > coalescedSeen) this.inc(now - coalescedSeen);
      coalescedSeen = now;
    },
  });
  void poolCoalesced;
  void poolQueue;
  void poolUtil;
  void poolThreads;

  // --- caches -------------------------------------------------------------------------------
  // Caches keep cumulative counts; the counters below follow them by deltas so they stay
  // monotonic (a cache that restarts its counts is seen as a counter reset of that amount).
  const caches = new Map<string, { read: () => CacheStats; lastHits: number; lastMisses: number; size: number }>();
  const refreshCaches = () => {
    for (const [name, c] of caches) {
      let s: CacheStats;
      try {
        s = c.read();
      } catch {
        continue;
      }
      const hits = finite(s.hits);
      const misses = finite(s.misses);
      cacheHits.inc({ cache: name }, hits >= c.lastHits ? hits - c.lastHits : hits);
      cacheMisses.inc({ cache: name }, misses >= c.lastMisses ? misses - c.lastMisses : misses);
      c.lastHits = hits;
      c.lastMisses = misses;
      c.size = finite(s.size);
    }
  };
  // The hit counter is collected first (registration order), so it refreshes all cache figures.
  const cacheHits: Counter<'cache'> = new Counter({ name: p('cache_hits_total'), help: 'Cache hits by cache name', labelNames: ['cache'] as const, registers, collect: refreshCaches });
  const cacheMisses = new Counter({ name: p('cache_misses_total'), help: 'Cache misses by cache name', labelNames: ['cache'] as const, registers });
  const cacheSize = new Gauge({
    name: p('cache_entries'),
    help: 'Entries held by each cache',
    labelNames: ['cache'] as const,
    registers,
    collect() {
      for (const [name, c] of caches) this.set({ cache: name }, c.size);
    },
  });
  void cacheSize;

  // --- upstreams ----------------------------------------------------------------------------
  const upstreamRequests = new Counter({ name: p('upstream_requests_total'), help: 'Requests to PCCS and the ledger node by service, route template and status (`error`: no response)', labelNames: ['service', 'route', 'status'] as const, registers });
  const upstreamErrors = new Counter({ name: p('upstream_errors_total'), help: 'Failed upstream requests (no response or status ≥ 500) by service and route template', labelNames: ['service', 'route'] as const, registers });
  const upstreamDuration = new Histogram({ name: p('upstream_request_duration_seconds'), help: 'Upstream request latency by service and route template', labelNames: ['service', 'route'] as const, buckets: UPSTREAM_BUCKETS, registers });

  // --- ledger watcher ------------------------------------------------------------------------
  const ledgerUpdates = new Counter({ name: p('ledger_updates_total'), help: 'Ledger oracle updates stored by the watcher, by report kind, outcome (valid, invalid, unverifiable) and failure code (`none` when valid)', labelNames: ['kind', 'outcome', 'code'] as const, registers });
  const ledgerRetries = new Counter({ name: p('ledger_retries_total'), help: 'Re-verifications of stored unverifiable ledger updates, by report kind, new outcome (valid, invalid, unverifiable) and failure code (`none` when valid)', labelNames: ['kind', 'outcome', 'code'] as const, registers });
  const ledgerWrites = {
    unrecognized: new Counter({ name: p('ledger_unrecognized_total'), help: 'Stored updates from transitions the program registry does not name (an unknown program or function whose inputs have the shape of an update), by program and function: names the registry does not hold are counted as "other" (GET /ledger/updates?unrecognized=true has them in full)', labelNames: ['program', 'function'] as const, registers }),
    unattested: new Counter({ name: p('ledger_unattested_total'), help: 'Stored writes of oracle data that carry no report (owner or council overwrites), by program and function', labelNames: ['program', 'function'] as const, registers }),
  };
  let ledgerRead: (() => { scannedHeight: number | null; tipHeight: number | null }) | undefined;
  const ledgerHeight = (which: 'scannedHeight' | 'tipHeight') =>
    function (this: Gauge) {
      let v: number | null | undefined;
      try {
        v = ledgerRead?.()[which];
      } catch {
        v = undefined;
      }
      // Unknown (the watcher has not reached its node yet, as GET /ledger/status's null): no sample.
      if (typeof v === 'number') this.set(v);
      else this.remove();
    };
  // Registered by registerLedgerHeights only (a process that runs a watcher): a replica without one
  // exports no height, rather than a height 0 that never moves (which reads as a stopped watcher);
  // a watcher exports each height only once it is known.
  const ledgerScanned = new Gauge({ name: p('ledger_scanned_height'), help: 'Every ledger block up to this height is scanned and its updates stored; exported only by a process that runs the ledger watcher, once a block is scanned', registers: [], collect: ledgerHeight('scannedHeight') });
  const ledgerTip = new Gauge({ name: p('ledger_tip_height'), help: 'Latest block height the ledger node reported to the watcher; exported only by a process that runs the ledger watcher, once the node answered', registers: [], collect: ledgerHeight('tipHeight') });
  let mappingRead: (() => { consistent: number; inconsistent: number; notChecked: number }) | undefined;
  const ledgerMapping = new Gauge({
    name: p('ledger_mapping_keys'),
    help: 'Mapping cross-check: keys of the oracle data mapping written by stored transitions, by the status of their last check (consistent, inconsistent, not_checked: not yet, undecidable, node unavailable, or written again since)',
    labelNames: ['status'] as const,
    registers,
    collect() {
      this.reset();
      let c: { consistent: number; inconsistent: number; notChecked: number } | undefined;
      try {
        c = mappingRead?.();
      } catch {
        c = undefined; // a store that cannot be read: no sample rather than a failed scrape
      }
      if (!c) return;
      this.set({ status: 'consistent' }, c.consistent);
      this.set({ status: 'inconsistent' }, c.inconsistent);
      this.set({ status: 'not_checked' }, c.notChecked);
    },
  });
  void ledgerMapping;
  // --- Completeness (docs/completeness.md) -----------------------------------------------------
  let completenessRead: (() => { status: 'complete' | 'incomplete' | 'not_checked'; unexplainedCount: number } | undefined) | undefined;
  const readCompleteness = () => {
    try {
      return completenessRead?.();
    } catch {
      return undefined; // a store that cannot be read: no sample rather than a failed scrape
    }
  };
  const ledgerCompleteness = new Gauge({
    name: p('ledger_completeness'),
    help: 'The last completeness check of the ledger watcher: 1 for its status (complete: every key of the oracle data mappings explained by a stored write; incomplete: some key is not, or a stored key is missing on chain; not_checked: no listing allowed, node down), 0 for the others; no sample before the first check',
    labelNames: ['status'] as const,
    registers,
    collect() {
      this.reset();
      const c = readCompleteness();
      if (!c) return;
      for (const s of ['complete', 'incomplete', 'not_checked'] as const) this.set({ status: s }, c.status === s ? 1 : 0);
    },
  });
  const ledgerUnexplained = new Gauge({
    name: p('ledger_unexplained_keys'),
    help: 'Keys of the oracle data mappings on chain that no stored write explains, at the last completeness check (GET /ledger/completeness lists them); no sample before a check that listed them',
    registers,
    collect() {
      this.reset();
      const c = readCompleteness();
      if (c && c.status !== 'not_checked') this.set(c.unexplainedCount);
    },
  });
  void ledgerCompleteness;
  void ledgerUnexplained;
  // --- PCCS reachability ---------------------------------------------------------------------
  let pccsUpRead: (() => boolean | undefined) | undefined;
  const pccsUp = new Gauge({
    name: p('pccs_up'),
    help: 'Whether the PCCS answered its latest request or probe (1) or not (0; also before the first observation); absent without a PCCS',
    registers: [],
    collect() {
      let v: boolean | undefined;
      try {
        v = pccsUpRead?.();
      } catch {
        v = undefined;
      }
      this.set(v === true ? 1 : 0);
    },
  });
  const pccsCircuitOpens = new Counter({
    name: p('pccs_circuit_opens_total'),
    help: 'Times the PCCS circuit breaker opened: a PCCS request got no answer (timeout, connection failure) or its probe failed; while open, cold typeA verifications fail at once (unverifiable)',
    registers,
  });
  const LEDGER_KINDS = new Set<string>(REPORT_TYPES);
  const OUTCOMES = new Set(['valid', 'invalid', 'unverifiable']);
  const ledgerLabels = (kind: string, outcome: Outcome, code: ErrorCode | undefined) => ({
    kind: LEDGER_KINDS.has(kind) ? kind : 'unknown',
    outcome: OUTCOMES.has(outcome) ? outcome : 'invalid',
    code: code === undefined ? 'none' : isErrorCode(code) ? code : 'OTHER',
  });

  // The batch's series, by label set (as bounded as the labels: see the rules above).
  const seriesIn = (map: Map<string, Series>, key: string, open: () => Series): Series => {
    let s = map.get(key);
    if (!s) map.set(key, (s = open()));
    return s;
  };
  const httpSeries = new Map<string, Series>();
  const verificationSeries = new Map<string, Series>();
  const failureSeries = new Map<string, Series>();
  const hashSeries = batch.open(hashDuration, undefined, {});
  const poolTaskSeries = batch.open(poolTask, undefined, {});
  const queueWaitSeries = batch.open(poolQueueWait, undefined, {});
  const runSeries = batch.open(poolRun, undefined, {});
  const collateralWaitSeries = batch.open(collateralWait, undefined, {});
  const workerGcSeries = batch.open(workerGc, undefined, {});

  const sink: MetricsSink = {
    observeLedgerUpdate(kind, outcome, code) {
      ledgerUpdates.inc(ledgerLabels(kind, outcome, code));
    },
    observeLedgerRetry(kind, outcome, code) {
      ledgerRetries.inc(ledgerLabels(kind, outcome, code));
    },
    observeLedgerWrite(what, program, fn) {
      ledgerWrites[what].inc({ program, function: fn });
    },
    registerLedgerHeights(read) {
      if (!ledgerRead) {
        registry.registerMetric(ledgerScanned);
        registry.registerMetric(ledgerTip);
      }
      ledgerRead = read;
    },
    registerLedgerMapping(read) {
      mappingRead = read;
    },
    registerLedgerCompleteness(read) {
      completenessRead = read;
    },
    registerPccsUp(read) {
      if (!pccsUpRead) registry.registerMetric(pccsUp);
      pccsUpRead = read;
    },
    observePccsCircuitOpen() {
      pccsCircuitOpens.inc();
    },
    observeVerification(kind, valid, code, seconds) {
      const k: VerificationKind = KINDS.has(kind) ? kind : 'unknown';
      const c = code !== undefined && isErrorCode(code) ? code : undefined;
      const outcome = outcomeFor(valid, c);
      batch.add(
        seriesIn(verificationSeries, `${k} ${outcome}`, () => batch.open(verificationDuration, verifications, { kind: k, outcome })),
        finite(seconds),
      );
      if (!valid) {
        const code = c ?? 'OTHER';
        batch.add(
          seriesIn(failureSeries, `${k} ${code}`, () => batch.open(undefined, verificationFailures, { kind: k, code })),
          1,
        );
      }
    },
    setPoolStats(stats) {
      poolStats = { ...stats };
    },
    registerPoolStats(read) {
      poolRead = read;
    },
    observePoolTask(seconds) {
      batch.add(poolTaskSeries, finite(seconds));
    },
    observePoolStages(s) {
      batch.add(queueWaitSeries, finite(s.queueWaitSeconds));
      batch.add(runSeries, finite(s.runSeconds));
      if (s.collateralWaitSeconds !== undefined) batch.add(collateralWaitSeries, finite(s.collateralWaitSeconds));
      for (const g of s.gcPauses) batch.add(workerGcSeries, finite(g));
    },
    registerCacheStats(name, read) {
      if (!CACHE_NAME_RE.test(name)) throw new Error(`metrics: invalid cache name ${JSON.stringify(name)}`);
      if (caches.has(name)) throw new Error(`metrics: cache ${JSON.stringify(name)} is already registered`);
      caches.set(name, { read, lastHits: 0, lastMisses: 0, size: 0 });
    },
    observeUpstream(service, route, status, seconds) {
      const r = routeLabel(route);
      const st = status === 'error' ? 'error' : Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'error';
      upstreamRequests.inc({ service, route: r, status: st });
      upstreamDuration.observe({ service, route: r }, finite(seconds));
      if (st === 'error' || Number(st) >= 500) upstreamErrors.inc({ service, route: r });
    },
    observeHash(seconds) {
      batch.add(hashSeries, finite(seconds));
    },
  };

  const observeHttp = (route: string | undefined, method: string, statusCode: number, seconds: number): void => {
    if (route === '/metrics') return;
    const r = route ?? 'unmatched';
    const m = METHODS.has(method) ? method : 'OTHER';
    const series = seriesIn(httpSeries, `${r} ${m} ${statusCode}`, () => batch.open(httpDuration, httpRequests, { route: r, method: m, status_code: String(statusCode) }));
    batch.add(series, finite(seconds));
  };

  const registerConnections = (read: () => ConnectionStats): void => {
    connectionsRead = read;
  };
  return { registry, sink, observeHttp, registerConnections };
}

/** Reports the outcome of a decodeReport call (or its facts: ReportAnswer) into the sink. */
export function recordVerification(sink: MetricsSink, out: VerificationFacts, seconds: number): void {
  sink.observeVerification(out.reportType ?? 'unknown', out.reportValid, out.error?.code, seconds);
  if (out.timings?.hashSeconds !== undefined) sink.observeHash(out.timings.hashSeconds);
}

/**
 * The service every front end calls (built by the composition root, src/compose.ts): each
 * verification — decodeReport (the CLI, the benchmarks), decodeReportAnswer (POST /decodeReport:
 * counted by the answer's facts) and verifyBytes (POST /verify) — is reported once: kind,
 * outcome, failure code and wall time. A call that throws
 * counts as an `unknown` report with its code (INTERNAL_ERROR when it has none; a full pool's
 * POOL_OVERLOADED: unverifiable) and the error is rethrown unchanged. decode verifies nothing and
 * is passed through.
 */
export function instrumentService(svc: VerifierService, sink: MetricsSink): VerifierService {
  const counted = async <R>(run: () => Promise<R>, facts: (r: R) => VerificationFacts): Promise<R> => {
    const t0 = performance.now();
    let out: R;
    try {
      out = await run();
    } catch (e) {
      sink.observeVerification('unknown', false, isVerifierError(e) ? e.code : 'INTERNAL_ERROR', (performance.now() - t0) / 1000);
      throw e;
    }
    recordVerification(sink, facts(out), (performance.now() - t0) / 1000);
    return out;
  };
  const outcome = (o: VerifyOutcome): VerificationFacts => o;
  const answered = (a: ReportAnswer): VerificationFacts => a.facts;
  const admit = svc.admit?.bind(svc);
  const answer = svc.decodeReportAnswer?.bind(svc);
  return {
    ...(svc.capacity !== undefined ? { capacity: svc.capacity } : {}),
    ...(admit
      ? {
          // A refused batch counts as its reports refused, as a refused single verification does.
          admit: (count: number) => {
            try {
              admit(count);
            } catch (e) {
              for (let i = 0; i < count; i++) sink.observeVerification('unknown', false, isVerifierError(e) ? e.code : 'INTERNAL_ERROR', 0);
              throw e;
            }
          },
        }
      : {}),
    decode: (userData) => svc.decode(userData),
    decodeReport: (userData, report, opts) => counted(() => svc.decodeReport(userData, report, opts), outcome),
    ...(answer ? { decodeReportAnswer: (userData: string, report: string, opts?: { nonce?: string }) => counted(() => answer(userData, report, opts), answered) } : {}),
    // A batch: each report counts once, with the batch's wall time shared out evenly.
    ...(svc.decodeReports
      ? {
          decodeReports: async (pairs: readonly ReportTexts[]) => {
            const t0 = performance.now();
            let outs: VerifyOutcome[];
            try {
              outs = await svc.decodeReports!(pairs);
            } catch (e) {
              const each = (performance.now() - t0) / 1000 / Math.max(1, pairs.length);
              for (let i = 0; i < pairs.length; i++) sink.observeVerification('unknown', false, isVerifierError(e) ? e.code : 'INTERNAL_ERROR', each);
              throw e;
            }
            const each = (performance.now() - t0) / 1000 / Math.max(1, outs.length);
            for (const o of outs) recordVerification(sink, o, each);
            return outs;
          },
        }
      : {}),
    verifyBytes: (task) => counted(() => svc.verifyBytes(task), outcome),
    checkResponse: async (entry) => {
      const t0 = performance.now();
      let c: ReportCheck;
      try {
        c = await svc.checkResponse(entry);
      } catch (e) {
        sink.observeVerification('unknown', false, isVerifierError(e) ? e.code : 'INTERNAL_ERROR', (performance.now() - t0) / 1000);
        throw e;
      }
      // Only an entry that reached the verification counts as one (a field mismatch verifies nothing).
      if (c.verification) recordVerification(sink, c.verification, (performance.now() - t0) / 1000);
      return c;
    },
  };
}
