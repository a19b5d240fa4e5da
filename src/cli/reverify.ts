/**
 * `oracle-verifier reverify`: bulk re-verification of oracle updates from a ledger node's blocks,
 * a JSONL file or saved transactions, through the same verification core and worker pool as the
 * server. Writes one JSONL record per update (see records.ts), a summary on stderr, and, with
 * --checkpoint, a checkpoint after each completed batch so that --resume continues exactly where
 * the last durable batch ended (the output is truncated to the checkpointed byte offset).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { intOption, numberOption, parseArgs, timeOption } from './args.js';
import { createCliVerifier, type CliVerifier } from './context.js';
import { cliError, EXIT } from './errors.js';
import { KNOWN_PROGRAM_IDS } from '../ledger/programs.js';
import { programsToFollow } from '../ledger/records/transitions.js';
import { createBlockScanner, MAX_BLOCKS_PER_CALL } from '../ledger/node/blockScanner.js';
import { FileSink, readRecords, StdoutSink, writeJsonAtomic, type Sink } from './output.js';
import { Progress } from './progress.js';
import { updateRecord, type OutputRecord } from '../ledger/records/updateRecord.js';
import { MeasurementState } from '../ledger/records/measurementState.js';
import { Summary } from './summary.js';
import { Semaphore } from '../rateLimit.js';
import { openUpdateStore, type UpdateStore } from '../ledger/store/updateStore.js';
import { storedUpdates } from '../ledger/watch/verifyUpdates.js';
import { blockSource, jsonlSource, parseShard, txDirSource, type Batch, type Source } from './sources.js';

export const REVERIFY_USAGE = `usage: oracle-verifier reverify SOURCE [options]
sources (one):
  --node URL --from H [--to H]   scan blocks [from, to) of a ledger node (to: latest + 1)
  --jsonl FILE                   lines of { "userData", "report", "id"? }
  --tx-dir DIR                   saved transaction JSON files (*.json)
programs:     --program NAME…  oracle programs to follow in blocks / transactions (repeatable;
              else the config's ledgerPrograms; else every known program: ${KNOWN_PROGRAM_IDS.join(', ')})
ledger scan:  --rps N (5)  --concurrency N (4)  --retries N (5)  --timeout-ms MS (30000)
              --backoff-ms MS (500)  --batch N (50, ≤ 50)  --shard i/n (batch index mod n = i)
verification: --config PATH  --at ISO-TIME  --workers N  --max-in-flight N
              --collateral-dir DIR (offline typeA collateral)  --pccs URL
output:       --out FILE (else stdout)  --checkpoint FILE  --resume  --progress-interval S (10)
store:        --store FILE  also write each update's record into this SQLite store (the one of the
              server's ledger watcher, config watch.database); with --node, --from defaults to the
              store's scanned height + 1, and contiguous scans advance it (resume across both)
exit: 0 all valid, 1 some invalid, 2 could not complete (or some updates could not be verified)`;

export const CHECKPOINT_FORMAT = 'oracle-verifier-checkpoint/1';

export interface Checkpoint {
  format: string;
  source: Record<string, unknown>;
  output: string;
  /** Next block height (blocks), line (jsonl) or file index (tx-dir) to process. */
  cursor: number;
  nextHeight?: number;
  outputOffset: number;
  done: boolean;
  updatedAt: string;
}

export interface ReverifyIo {
  stderr: (s: string) => void;
  /** Whether stderr is a terminal (progress rewritten in place). */
  tty: boolean;
  /** Set to true to stop after the batches in progress (SIGINT). */
  stopRequested?: () => boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function reverifyCommand(argv: readonly string[], io: ReverifyIo): Promise<number> {
  const a = parseArgs(argv, {
    values: [
      'node', 'from', 'to', 'rps', 'concurrency', 'retries', 'timeout-ms', 'backoff-ms', 'batch', 'shard',
      'jsonl', 'tx-dir', 'config', 'at', 'workers', 'max-in-flight', 'collateral-dir', 'pccs', 'out', 'checkpoint', 'progress-interval', 'store',
    ],
    lists: ['program'],
    flags: ['resume', 'help'],
  });
  if (a.flags.has('help')) {
    io.stderr(`${REVERIFY_USAGE}\n`);
    return 0;
  }
  if (a.positionals.length) throw cliError('CLI_USAGE', `reverify: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const sources = ['node', 'jsonl', 'tx-dir'].filter((k) => a.values.has(k));
  if (sources.length !== 1) throw cliError('CLI_USAGE', 'reverify: give exactly one source: --node, --jsonl or --tx-dir');
  const checkpointFile = a.values.get('checkpoint');
  const outFile = a.values.get('out');
  const resume = a.flags.has('resume');
  if (checkpointFile && !outFile) throw cliError('CLI_USAGE', 'reverify: --checkpoint needs --out FILE');
  if (resume && !checkpointFile) throw cliError('CLI_USAGE', 'reverify: --resume needs --checkpoint FILE');
  const shard = a.values.has('shard') ? parseShard(a.values.get('shard')!) : undefined;
  if (shard && !a.values.has('node')) throw cliError('CLI_USAGE', 'reverify: --shard applies to --node scans');
  if (a.values.has('store') && a.values.has('jsonl')) throw cliError('CLI_USAGE', 'reverify: --store needs ledger updates (--node or --tx-dir); JSONL lines carry no transition ids');

  // The verifier (pool or in-process) is built before the source so that config errors come first.
  const workersFlag = intOption(a, 'workers', undefined, 0, 256);
  const at = timeOption(a, 'at');
  const verifier = createCliVerifier({
    ...(a.values.has('config') ? { configPath: a.values.get('config')! } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(workersFlag !== undefined ? { workers: workersFlag } : {}),
    ...(a.values.has('collateral-dir') ? { collateralDir: a.values.get('collateral-dir')! } : {}),
    ...(a.values.has('pccs') ? { pccsUrl: a.values.get('pccs')! } : {}),
  });
  let store: UpdateStore | undefined;
  try {
    if (a.values.has('store')) store = openUpdateStore(resolve(a.values.get('store')!));
    if (a.lists.has('program') && a.values.has('jsonl')) throw cliError('CLI_USAGE', 'reverify: --program applies to --node and --tx-dir');
    const programs = a.lists.has('program')
      ? programsToFollow(a.lists.get('program'), 'reverify --program')
      : programsToFollow(verifier.config.ledgerPrograms, `config ${verifier.config.file}: ledgerPrograms`);
    let source: Source;
    if (a.values.has('node')) {
      const scanned = store?.state().scannedHeight;
      const from = intOption(a, 'from', undefined, 0, Number.MAX_SAFE_INTEGER) ?? (scanned != null ? scanned + 1 : undefined);
      if (from === undefined) throw cliError('CLI_USAGE', `reverify: --node needs --from HEIGHT${store ? ' (the store has scanned nothing yet)' : ''}`);
      const scanner = createBlockScanner({
        baseUrl: a.values.get('node')!,
        rps: numberOption(a, 'rps', 5, 0),
        timeoutMs: intOption(a, 'timeout-ms', 30_000, 100, 600_000)!,
        retries: intOption(a, 'retries', 5, 0, 100)!,
        backoffMs: intOption(a, 'backoff-ms', 500, 0, 600_000)!,
      });
      let to = intOption(a, 'to', undefined, 0, Number.MAX_SAFE_INTEGER);
      if (to === undefined) to = (await scanner.latestHeight()) + 1;
      if (to <= from) throw cliError('CLI_USAGE', `reverify: --to ${to} must be greater than --from ${from}`);
      source = blockSource({
        scanner,
        node: scanner.client.baseUrl,
        programs,
        from,
        to,
        batchSize: intOption(a, 'batch', MAX_BLOCKS_PER_CALL, 1, MAX_BLOCKS_PER_CALL)!,
        concurrency: intOption(a, 'concurrency', 4, 1, 64)!,
        ...(shard ? { shard } : {}),
      });
    } else if (a.values.has('jsonl')) {
      const f = resolve(a.values.get('jsonl')!);
      if (!existsSync(f)) throw cliError('CLI_BAD_INPUT', `--jsonl ${f}: no such file`);
      source = jsonlSource(f);
    } else {
      source = txDirSource(resolve(a.values.get('tx-dir')!), programs);
    }
    const defaultInFlight = Math.max(2, verifier.workers * 4);
    const maxInFlight = Math.min(intOption(a, 'max-in-flight', defaultInFlight, 1, 100_000)!, verifier.config.maxQueue + Math.max(1, verifier.workers));
    return await runReverify({
      source,
      verifier,
      maxInFlight,
      annotateInForce: !shard || shard.count === 1,
      ...(outFile ? { outFile: resolve(outFile) } : {}),
      ...(checkpointFile ? { checkpointFile: resolve(checkpointFile) } : {}),
      resume,
      ...(store ? { store } : {}),
      progressIntervalMs: Math.round(numberOption(a, 'progress-interval', 10, -1) * 1000),
      io,
    });
  } finally {
    store?.close();
    await verifier.close();
  }
}

export interface RunOptions {
  source: Source;
  verifier: Pick<CliVerifier, 'verify'>;
  maxInFlight: number;
  /** Replay owner transitions into measurementInForce (off for shards: merge does it). */
  annotateInForce: boolean;
  outFile?: string;
  checkpointFile?: string;
  resume: boolean;
  /** Also commit each batch's update records (and, for contiguous block ranges, the scanned height) to this store. */
  store?: UpdateStore;
  progressIntervalMs: number;
  io: ReverifyIo;
}

function readCheckpoint(file: string): Checkpoint {
  let c: Checkpoint;
  try {
    c = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
  } catch (e) {
    throw cliError('CLI_CHECKPOINT_INVALID', `checkpoint ${file} is not readable JSON (${(e as Error).message})`);
  }
  if (c?.format !== CHECKPOINT_FORMAT || typeof c.cursor !== 'number' || typeof c.outputOffset !== 'number') {
    throw cliError('CLI_CHECKPOINT_INVALID', `checkpoint ${file} is not of format ${CHECKPOINT_FORMAT}`);
  }
  return c;
}

/** Runs a source to completion (or to a stop request); returns the exit code. */
export async function runReverify(o: RunOptions): Promise<number> {
  const { source, io } = o;
  const summary = new Summary();
  const state = new MeasurementState();
  let cursor = source.initialCursor;
  let startOffset = 0;
  if (o.checkpointFile) {
    const exists = existsSync(o.checkpointFile);
    if (exists && !o.resume) throw cliError('CLI_CHECKPOINT_MISMATCH', `checkpoint ${o.checkpointFile} exists: add --resume to continue that run, or delete it to start over`);
    if (exists) {
      const c = readCheckpoint(o.checkpointFile);
      if (!same(c.source, source.identity) || c.output !== o.outFile) {
        throw cliError('CLI_CHECKPOINT_MISMATCH', `checkpoint ${o.checkpointFile} belongs to another run (source ${JSON.stringify(c.source)}, output ${c.output})`);
      }
      cursor = c.cursor;
      startOffset = c.outputOffset;
      // The output up to the checkpoint is the state: summary and measurements replayed from it.
      const done = existsSync(o.outFile!) ? readRecords(o.outFile!, startOffset) : [];
      for (const r of done) {
        state.apply(r);
        summary.add(r);
      }
      io.stderr(`resuming at ${source.unit === 'blocks' ? 'height' : source.unit} ${cursor} with ${summary.updates} updates already written\n`);
    }
  }
  const sink: Sink = o.outFile ? new FileSink(o.outFile, startOffset) : new StdoutSink();
  const saveCheckpoint = (done: boolean) => {
    if (!o.checkpointFile) return;
    const c: Checkpoint = {
      format: CHECKPOINT_FORMAT,
      source: source.identity,
      output: o.outFile!,
      cursor,
      ...(source.unit === 'blocks' ? { nextHeight: cursor } : {}),
      outputOffset: sink.offset,
      done,
      updatedAt: new Date().toISOString(),
    };
    writeJsonAtomic(o.checkpointFile, c);
  };
  const remaining = source.remaining(cursor);
  const progress = new Progress({ ...(remaining !== undefined ? { total: remaining } : {}), unit: source.unit, tty: io.tty, intervalMs: o.progressIntervalMs, ...(io.tty ? {} : { write: io.stderr }) });
  const sem = new Semaphore(o.maxInFlight);
  const stop = () => io.stopRequested?.() ?? false;

  type Pending = { batch: Batch; records: Promise<OutputRecord[]> };
  const start = (batch: Batch): Pending => {
    const records = Promise.all(
      batch.items.map((it) =>
        it.type === 'update' ? sem.run(() => o.verifier.verify(it.userData, it.report)).then((out) => updateRecord(it.base, out)) : Promise.resolve(it.record),
      ),
    );
    records.catch(() => undefined); // awaited in order by flush
    return { batch, records };
  };
  const flush = async (p: Pending) => {
    const recs = await p.records;
    let text = '';
    let updates = 0;
    for (let r of recs) {
      if (r.kind === 'measurement') state.apply(r);
      else {
        if (o.annotateInForce) r = state.annotate(r);
        updates++;
      }
      summary.add(r);
      text += `${JSON.stringify(r)}\n`;
    }
    await sink.write(text);
    sink.sync();
    o.store?.commit(storedUpdates(recs), source.unit === 'blocks' ? { start: p.batch.cursor - p.batch.units, end: p.batch.cursor - 1 } : undefined);
    cursor = p.batch.cursor;
    saveCheckpoint(false);
    progress.add(p.batch.units, updates);
  };

  let failure: unknown;
  const pending: Pending[] = [];
  // Verification of later batches overlaps with the writing of earlier ones; the output order is
  // the source order. Batches waiting for their verification are bounded.
  const maxPending = Math.max(2, Math.ceil(o.maxInFlight / 16) + 1);
  try {
    for await (const batch of source.batches(cursor, stop)) {
      pending.push(start(batch));
      while (pending.length > maxPending) await flush(pending.shift()!);
      if (stop()) break;
    }
  } catch (e) {
    failure = e;
  }
  try {
    while (pending.length) await flush(pending.shift()!);
  } catch (e) {
    failure ??= e;
  }
  progress.stop();
  const complete = failure === undefined && !stop();
  if (complete) saveCheckpoint(true);
  await sink.close();
  io.stderr(summary.table());
  if (failure !== undefined) {
    io.stderr(`reverify stopped: ${(failure as Error).message}${o.checkpointFile ? ` (continue with --resume; checkpoint at ${source.unit === 'blocks' ? 'height' : source.unit} ${cursor})` : ''}\n`);
    return EXIT.INCOMPLETE;
  }
  if (!complete) {
    io.stderr(`reverify interrupted${o.checkpointFile ? `; continue with --resume (checkpoint at ${cursor})` : ''}\n`);
    return EXIT.INCOMPLETE;
  }
  return summary.exitCode();
}
