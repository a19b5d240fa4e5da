/**
 * The server's ledger side, built from the config: transaction lookups against the ledger node
 * (`liveCheck.apiBaseUrl`), and with `watch.enabled` the update store and the watcher. The
 * followed programs: `ledgerPrograms` (else every program of the registry, src/ledger/programs.ts),
 * plus `liveCheck.contractName` when it is a registry program. At most `ledgerLookupQueue`
 * lookups wait for the node at once (for a rate-limit slot or for its answer); a lookup beyond
 * that is refused at once (LEDGER_LOOKUP_QUEUE_FULL, 503 with Retry-After: the time the node's
 * rate takes to serve the waiting ones).
 */
import { publicUrl, redactorOf, secretsOf } from '../upstream/publicUrl.js';
import type { Config } from '../config/load.js';
import { VerifierError } from '../errors.js';
import { itemsOfTransaction, programsToFollow } from '../ledger/records/transitions.js';
import { judgeAtBlockTimes } from '../ledger/records/blockTimes.js';
import { blockTimestamp } from '../ledger/node/mappingListing.js';
import { createBlockScanner, fetchTransaction, MAX_BLOCKS_PER_CALL } from '../ledger/node/blocks/fetchBlocks.js';
import { ProgramRegistry } from '../ledger/programs.js';
import { openUpdateStore, type LedgerRecord, type UpdateStore } from '../ledger/store/updateStore.js';
import { storedUpdates, verifyUpdates, type Verify, type VerifyMany } from '../ledger/watch/verifyUpdates.js';
import { NOOP_METRICS_SINK, type MetricsSink } from '../observability/metrics.js';
import { LedgerWatcher, type WatcherLog, type WatcherStatus } from '../ledger/watch/watcher.js';
import { StoreLease } from '../ledger/watch/lease.js';
import { traitsOf } from '../errorCodes.js';
import { ledgerNodeHeaders, ledgerNodeJwt } from '../upstream/credentials.js';
import { createLedgerNodeClient, type LedgerNodeClient } from '../ledger/node/client.js';
import { InclusionProver } from '../ledger/inclusion/prover.js';
import { MAX_LISTING_BYTES } from '../ledger/node/mappingListing.js';
import { COMPLETENESS_DEFAULTS } from '../ledger/watch/completeness.js';
import { RateLimiter } from '../rateLimit.js';
import { BoundedRoom } from '../rateLimit.js';
import type { LedgerWatchCode } from '../ledger/watch/errors.js';

/** Retries of a transaction lookup (a client waits for the answer; the watcher retries on its own). */
const LOOKUP_RETRIES = 2;
const WATCH_RETRIES = 5;
const BACKOFF_MS = 500;

/** A lookup refused because `ledgerLookupQueue` lookups already wait for the node; retry after `retryAfterSeconds`. */
export class LookupQueueFull extends VerifierError<LedgerWatchCode> {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('LEDGER_LOOKUP_QUEUE_FULL', message);
  }
}

export interface TransactionUpdates {
  transactionId: string;
  blockHeight: number;
  updates: LedgerRecord[];
}

/** What the /ledger routes use; absent parts answer 503 with LEDGER_*_NOT_CONFIGURED. */
export interface LedgerRoutesOptions {
  lookup?: (transactionId: string) => Promise<TransactionUpdates>;
  store?: UpdateStore;
  watcherStatus?: () => WatcherStatus;
}

export interface LedgerFeature {
  routes: LedgerRoutesOptions;
  start(): void;
  close(): Promise<void>;
}

/** The built-in programs and those config.json defines (ledgerPrograms). */
export function programRegistryOf(config: Pick<Config, 'definedPrograms'>): ProgramRegistry {
  return new ProgramRegistry(config.definedPrograms);
}

export function followedPrograms(config: Pick<Config, 'ledgerPrograms' | 'definedPrograms' | 'liveCheck' | 'file'>): string[] {
  const registry = programRegistryOf(config);
  const programs = programsToFollow(config.ledgerPrograms, `config ${config.file}: ledgerPrograms`, registry);
  const contract = config.liveCheck.contractName;
  if (contract !== undefined && registry.program(contract)) {
    for (const id of registry.withRelated([contract])) if (!programs.includes(id)) programs.push(id);
  }
  return programs;
}

/** Why the keys of the data mapping `program` holds are not established from the sources (undefined: they are). */
export function uncertainKeys(registry: ProgramRegistry, program: string): string | undefined {
  return registry.programs.find((p) => p.attestedData?.program === program && p.attestedData.uncertain !== undefined)?.attestedData?.uncertain;
}

/**
 * The completeness check's settings: the mapping listing through a client of its own that sends
 * the node's JWT (LEDGER_NODE_JWT, as `Authorization: Bearer …`; never shown: the client redacts
 * header values from its messages), paced at `rps`; without a JWT the check answers not_checked.
 */
/**
 * The watcher's inclusion prover (watch.proveInclusion): blocks read again from the node it
 * follows; block hashes confirmed by `confirmWith` (no credentials sent, its own rate) or by the node.
 */
function inclusionProver(node: LedgerNodeClient, confirmWith: string | undefined, timeoutMs: number, rps: number, backoffMs: number, signal?: AbortSignal): InclusionProver {
  const limiter = new RateLimiter(rps);
  const confirm = confirmWith === undefined ? undefined : createLedgerNodeClient({ baseUrl: confirmWith, timeoutMs, retries: WATCH_RETRIES, backoffMs, acquire: () => limiter.acquire(), ...(signal ? { signal } : {}) });
  return new InclusionProver({ node, ...(confirm ? { confirmWith: confirm } : {}) });
}

export function completenessOf(
  baseUrl: string,
  config: Pick<Config, 'liveCheck' | 'watch'>,
  node: { headers: Record<string, string>; signal?: AbortSignal },
  rps: number,
  env: NodeJS.ProcessEnv = process.env,
) {
  const jwt = ledgerNodeJwt(env);
  const limiter = new RateLimiter(rps);
  const listing =
    jwt === undefined
      ? undefined
      : createLedgerNodeClient({
          baseUrl,
          timeoutMs: config.liveCheck.timeoutMs,
          retries: WATCH_RETRIES,
          backoffMs: BACKOFF_MS,
          acquire: () => limiter.acquire(),
          headers: { ...node.headers, authorization: `Bearer ${jwt}` },
          secrets: [jwt],
          maxBodyBytes: MAX_LISTING_BYTES,
          ...(node.signal ? { signal: node.signal } : {}),
        });
  return {
    ...(listing ? { listing } : {}),
    windowSeconds: config.watch?.completenessWindowSeconds ?? COMPLETENESS_DEFAULTS.windowSeconds,
    maxRescans: config.watch?.completenessMaxRescans ?? COMPLETENESS_DEFAULTS.maxRescans,
    intervalMs: config.watch?.completenessIntervalMs ?? COMPLETENESS_DEFAULTS.intervalMs,
    batchBlocks: config.watch?.batchBlocks ?? 50,
  };
}

export interface LedgerFeatureOptions {
  /** Abandons every ledger-node request, in progress or later (the server is shutting down). */
  signal?: AbortSignal;
  /** Several updates at once (the service's decodeReports): the watcher verifies a block range's updates in batches. */
  verifyMany?: VerifyMany;
}

export function createLedgerFeature(config: Config, verify: Verify, log: WatcherLog, sink: MetricsSink = NOOP_METRICS_SINK, o: LedgerFeatureOptions = {}): LedgerFeature {
  // With a collateral archive each update is judged as it stood at its block's timestamp (docs/history.md).
  const judgeAtBlock = config.collateralArchive !== undefined;
  const baseUrl = config.liveCheck.apiBaseUrl;
  if (baseUrl === undefined) return { routes: {}, start() {}, close: async () => {} };
  // The node's API key (LEDGER_NODE_API_KEY) in its header; the base URL's query goes with every request.
  // The JWT the listing sends is cut out of whatever any of these clients shows (a node may echo it anywhere).
  const jwt = ledgerNodeJwt();
  const node = { headers: ledgerNodeHeaders(config.liveCheck.apiKeyHeader), ...(jwt !== undefined ? { secrets: [jwt] } : {}), ...(o.signal ? { signal: o.signal } : {}) };
  const programs = followedPrograms(config);
  const registry = programRegistryOf(config);
  const rps = config.watch?.rps ?? 5;
  // Backoff between retries: at most the poll interval (a watcher polling fast also retries fast).
  const backoffMs = Math.min(BACKOFF_MS, config.watch?.pollIntervalMs ?? BACKOFF_MS);
  const lookupNode = createBlockScanner({ baseUrl, rps, timeoutMs: config.liveCheck.timeoutMs, retries: LOOKUP_RETRIES, backoffMs, ...node });
  const waiting = new BoundedRoom(config.ledgerLookupQueue);
  const lookup = async (id: string): Promise<TransactionUpdates> => {
    const leave = waiting.enter();
    if (!leave) {
      // Each waiting lookup needs at least one node request: the time the node's rate takes to serve them.
      const seconds = Math.max(1, Math.ceil(waiting.size / rps));
      throw new LookupQueueFull(`${waiting.size} transaction lookups are waiting for the ledger node (ledgerLookupQueue ${waiting.size}, ${rps} requests/s); retry in ${seconds} s`, seconds);
    }
    let fetched: Awaited<ReturnType<typeof fetchTransaction>>;
    try {
      fetched = await fetchTransaction(lookupNode.client, id);
    } finally {
      leave();
    }
    const { transaction, blockHeight } = fetched;
    const items = itemsOfTransaction(transaction, programs, blockHeight, registry);
    if (judgeAtBlock) await judgeAtBlockTimes(items, new Map(), (h) => blockTimestamp(lookupNode.client, h));
    const records = await verifyUpdates(items, verify);
    // The pool refused a verification (overloaded, closing): the whole answer is a 503, not a verdict.
    const refused = records.find((r) => r.errorCode !== undefined && traitsOf(r.errorCode).refused);
    if (refused) throw new VerifierError(refused.errorCode!, refused.errorString ?? 'verification refused by the pool');
    return { transactionId: id, blockHeight, updates: storedUpdates(records).map((u) => u.record) };
  };
  const w = config.watch;
  if (!w) return { routes: { lookup }, start() {}, close: async () => {} };
  const store = openUpdateStore(w.database);
  // One watcher per store: while another watcher holds the lease, the server starts and this
  // watcher waits for it (StoreLease.acquireWaiting), its status naming the holder.
  const lease = new StoreLease(store, { ttlMs: w.leaseTtlMs, log, onLost: (e) => watcher.halt(e) });
  const stopWaiting = new AbortController();
  let waitingFor: { holder: string; expiresAt: string } | undefined;
  let leaseWait: Promise<void> | undefined;
  const scanner = createBlockScanner({ baseUrl, rps, timeoutMs: config.liveCheck.timeoutMs, retries: WATCH_RETRIES, backoffMs, blockSource: w.blockSource, ...node });
  const watcher: LedgerWatcher = new LedgerWatcher({
    scanner,
    store,
    programs,
    registry,
    verify,
    ...(o.verifyMany ? { verifyMany: o.verifyMany } : {}),
    ...(judgeAtBlock ? { judgeAtBlock } : {}),
    fromHeight: w.fromHeight,
    pollIntervalMs: w.pollIntervalMs,
    ...(w.batchBlocks !== undefined ? { batchBlocks: w.batchBlocks } : {}),
    concurrency: Math.max(1, config.workers),
    log,
    redact: redactorOf([...secretsOf(baseUrl, node.headers), ...[ledgerNodeJwt()].filter((j): j is string => j !== undefined)]),
    onStored: (added) => {
      for (const u of added) {
        const r = u.record;
        // Labels from the registry's names and `other` only (anyone can deploy a program name).
        const l = registry.metricLabels(r.program, r.function);
        if (r.outcome === 'unattested') sink.observeLedgerWrite('unattested', l.program, l.function);
        else sink.observeLedgerUpdate(r.reportType, r.outcome, r.errorCode);
        if (r.unrecognized) sink.observeLedgerWrite('unrecognized', l.program, l.function);
      }
    },
    retry: { intervalMs: w.retryIntervalMs, batch: (w.batchBlocks ?? MAX_BLOCKS_PER_CALL) * 4 },
    ...(w.mappingKeysPerPoll > 0 ? { mappingCheck: { keysPerRound: w.mappingKeysPerPoll, uncertain: (program: string) => uncertainKeys(registry, program) } } : {}),
    ...(w.completeness ? { completeness: completenessOf(baseUrl, config, node, rps) } : {}),
    ...(w.proveInclusion ? { inclusion: inclusionProver(scanner.client, w.confirmWith, config.liveCheck.timeoutMs, rps, backoffMs, o.signal) } : {}),
    onRetried: (u) => {
      if (u.outcome !== 'unattested') sink.observeLedgerRetry(u.record.reportType, u.outcome, u.record.errorCode);
    },
  });
  sink.registerLedgerHeights(() => store.state());
  sink.registerLedgerMapping(() => store.mappingCounts());
  sink.registerLedgerCompleteness(() => store.completeness());
  return {
    routes: { lookup, store, watcherStatus: () => ({ ...watcher.status(), ...(waitingFor ? { waitingForLease: waitingFor } : {}) }) },
    start() {
      const begin = () => {
        log.info({ database: w.database, programs, fromHeight: w.fromHeight, node: publicUrl(baseUrl), lease: lease.holder }, 'ledger watcher started');
        lease.start();
        watcher.start();
      };
      leaseWait = lease
        .acquireWaiting(stopWaiting.signal, (held) => {
          waitingFor = held ? { holder: held.holder, expiresAt: new Date(held.expiresAt).toISOString() } : undefined;
        })
        .then(
          (taken) => {
            if (taken && !stopWaiting.signal.aborted) begin();
          },
          (e: unknown) => {
            // The store could not be read or written for the lease: the watcher does not run, and says why.
            const err = e instanceof VerifierError ? e : new VerifierError('STORE_WRITE_FAILED', `store: ${w.database}: the lease could not be taken: ${e instanceof Error ? e.message : String(e)}`);
            log.warn({ code: err.code, err: err.message }, 'ledger watcher: not started: the store lease could not be taken');
            watcher.halt(err);
          },
        );
    },
    async close() {
      stopWaiting.abort();
      await leaseWait;
      await watcher.stop();
      lease.release();
      store.close();
    },
  };
}
