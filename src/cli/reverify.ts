/**
 * `oracle-verifier reverify`: bulk re-verification of oracle updates from a ledger node's blocks,
 * a JSONL file or saved transactions, through the same verification core and worker pool as the
 * server. Writes one JSONL record per update (src/ledger/records/updateRecord.ts), a summary on stderr, and, with
 * --checkpoint, a checkpoint of the written batches (at most every DURABLE_EVERY_MS, and at the end) so that --resume continues exactly where
 * the last durable batch ended (the output is truncated to the checkpointed byte offset).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions, usage, type CommandSpec } from './args.js';
import { createCliVerifier, type CliVerifier } from './context.js';
import { TCB_UPDATE_POLICIES, type TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';
import { cliError, EXIT } from './errors.js';
import { KNOWN_PROGRAM_IDS, ProgramRegistry } from '../ledger/programs.js';
import { programsToFollow } from '../ledger/records/transitions.js';
import { BLOCK_SOURCE_CHOICES, blockSourceRoute, blocksPerCall, createBlockScanner, MAX_TRANSACTION_BLOCKS_PER_CALL, type BlockSourceChoice } from '../ledger/node/blocks/fetchBlocks.js';
import { ledgerNodeHeaders, ledgerNodeJwt } from '../upstream/credentials.js';
import { FileSink, readRecords, StdoutSink, writeJsonAtomic, type Sink } from './output.js';
import { Progress } from './progress.js';
import type { OutputRecord } from '../ledger/records/updateRecord.js';
import { MeasurementState } from '../ledger/records/measurementState.js';
import { Summary } from './summary.js';
import { earOutIssuer, writeEarOut } from './earOut.js';
import { policyDigest } from '../verify/policy.js';
import { Semaphore } from '../rateLimit.js';
import { openUpdateStore, type UpdateStore } from '../ledger/store/updateStore.js';
import { storedUpdates, UPDATE_BATCH, updateRecordOf } from '../ledger/watch/verifyUpdates.js';
import { UpdateRuns } from './updateRuns.js';
import { blockSource, jsonlSource, parseShard, txDirSource, type Batch, type SavedBlock, type Source } from './sources.js';
import { blocksDirSource, saveBlock } from './savedBlocks.js';
import { completenessExit, completenessLines, runCompleteness, storeOfRecords, UNCHECKED_CAVEAT } from './completeness.js';
import { COMPLETENESS_DEFAULTS } from '../ledger/watch/completeness.js';
import type { BlockScanner } from '../ledger/node/blocks/fetchBlocks.js';
import { RequestBudget, type BudgetState } from '../requestBudget.js';
import { planScan } from './plan.js';
import { pinnedEnd } from './pinnedEnd.js';
import { InclusionProver } from '../ledger/inclusion/prover.js';
import { createLedgerNodeClient } from '../ledger/node/client.js';

/**
 * Test only: the length of a budget "day" in ms (default: a UTC day), so that tests need not wait
 * for midnight. Not an option: a real budget's day is the API's UTC day.
 */
const TEST_DAY_MS_ENV = 'ORACLE_VERIFIER_TEST_DAY_MS';

/**
 * Written batches are made durable (output synced, checkpoint saved) at most this often, and at the
 * end: one fdatasync and one atomic checkpoint write per batch were the largest item of the main
 * thread's profile on a /blocks/transactions scan (BENCHMARKS.md, "Audit at mainnet scale").
 */
const DURABLE_EVERY_MS = 1000;

const SOURCES = 'sources (one)';
const SCAN = 'ledger scan';
const VERIFICATION = 'verification';
const OUTPUT = 'output';

export const REVERIFY = {
  command: 'reverify',
  synopsis: 'SOURCE [options]',
  options: {
    node: { kind: 'string', arg: 'URL', group: SOURCES, help: 'scan blocks [from, to) of a ledger node' },
    from: { kind: 'int', arg: 'H', min: 0, max: Number.MAX_SAFE_INTEGER, default: "with --store, the store's scanned height + 1", group: SOURCES, help: 'with --node: the first height' },
    to: { kind: 'int', arg: 'H', min: 0, max: Number.MAX_SAFE_INTEGER, default: 'latest + 1', group: SOURCES, help: 'with --node: the end height, not scanned' },
    'to-file': {
      kind: 'string',
      arg: 'FILE',
      group: SOURCES,
      help: "with --node, instead of --to: the end height written in FILE; when FILE does not exist, the node's latest height + 1, written there first (the first writer wins), so that the shards of one audit and their resumes share one end",
    },
    jsonl: { kind: 'string', arg: 'FILE', group: SOURCES, help: 'lines of { "userData", "report", "id"? }' },
    'tx-dir': { kind: 'string', arg: 'DIR', group: SOURCES, help: 'saved transaction JSON files (*.json)' },
    'blocks-dir': { kind: 'string', arg: 'DIR', group: SOURCES, help: 'blocks saved by --save-blocks: the same records again, e.g. --offline on another machine' },
    'prove-inclusion': { kind: 'flag', group: SOURCES, help: "with --node: prove each update's values committed in its block (input ids, transition, transaction, transactions root, block hash; docs/inclusion.md), reading its block again whole" },
    'confirm-with': { kind: 'string', arg: 'URL', group: SOURCES, help: "with --prove-inclusion: an independent API (with its network) that must name the same block hash; without it the node's own hash is taken (one's own node)" },
    'save-blocks': { kind: 'string', arg: 'DIR', group: SOURCES, help: 'with --node: keep each block holding a followed transition, as read, with its timestamp (for --blocks-dir)' },
    offline: {
      kind: 'flag',
      group: VERIFICATION,
      help: "no network: a saved source (--blocks-dir, --tx-dir, --jsonl), typeA collateral from --archive or --collateral-dir only (the config's pccsUrl is not used)",
    },
    program: {
      kind: 'list',
      arg: 'NAME',
      group: 'programs',
      help: `oracle programs to follow in blocks / transactions (repeatable; else the config's ledgerPrograms; else every known program: ${KNOWN_PROGRAM_IDS.join(', ')})`,
    },
    rps: { kind: 'number', arg: 'N', above: 0, default: 5, group: SCAN, help: 'requests per second to the node' },
    'requests-per-day': {
      kind: 'int',
      arg: 'N',
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      group: SCAN,
      help: "requests per UTC day to the node (a public API's budget, e.g. 100000), every attempt counted, retries included; the checkpoint records each day's count and --resume continues it; when the day's budget is spent, the run waits for the next UTC day (saying until when)",
    },
    'stop-when-budget-spent': {
      kind: 'flag',
      group: SCAN,
      help: "with --requests-per-day: stop instead (exit 2, CLI_REQUEST_BUDGET_SPENT, the checkpoint kept: --resume the next UTC day)",
    },
    concurrency: { kind: 'int', arg: 'N', min: 1, max: 64, default: 4, group: SCAN, help: 'batches fetched at once' },
    retries: { kind: 'int', arg: 'N', min: 0, max: 100, default: 5, group: SCAN, help: 'retries of a failed request' },
    'timeout-ms': { kind: 'int', arg: 'MS', min: 100, max: 600_000, default: 30_000, group: SCAN, help: 'timeout of a request' },
    'backoff-ms': { kind: 'int', arg: 'MS', min: 0, max: 600_000, default: 500, group: SCAN, help: 'first delay before a retry' },
    batch: {
      kind: 'int',
      arg: 'N',
      min: 1,
      max: MAX_TRANSACTION_BLOCKS_PER_CALL,
      default: "checkpoint's, else per request",
      group: SCAN,
      help: 'blocks per batch (shards, checkpoints)',
    },
    'block-source': {
      kind: 'string',
      arg: 'KIND',
      group: SCAN,
      help: 'transactions (/blocks/transactions, 160 a request), blocks (/blocks, 50) or auto (default): the first if served',
    },
    shard: { kind: 'string', arg: 'i/n', group: SCAN, help: 'only the batches whose index mod n = i (merge the shards with merge)' },
    config: { kind: 'string', arg: 'PATH', group: VERIFICATION, help: 'config file (else ./config.json, else the bundled one)' },
    at: { kind: 'time', arg: 'ISO-TIME', group: VERIFICATION, help: "typeA verification time (else the config's verificationTime, else now)" },
    archive: {
      kind: 'string',
      arg: 'DIR',
      group: VERIFICATION,
      help: "collateral archive (else the config's collateralArchive): each update of a --node scan is judged as it stood at its block's timestamp, under the TCB evaluation then in force (docs/history.md)",
    },
    'tcb-update': { kind: 'string', arg: 'POLICY', group: VERIFICATION, help: "standard (default: the config's tcbUpdatePolicy) or early: which TCB evaluation is in force at a time" },
    workers: { kind: 'int', arg: 'N', min: 0, max: 256, default: "the config's workers", group: VERIFICATION, help: 'verification worker threads; 0: verify in this process' },
    'max-in-flight': {
      kind: 'int',
      arg: 'N',
      min: 1,
      max: 100_000,
      default: 'max(2, 4 × workers)',
      group: VERIFICATION,
      help: "verifications under way at once, at most the config's maxQueue + workers",
    },
    'collateral-dir': { kind: 'string', arg: 'DIR', group: VERIFICATION, help: 'offline typeA collateral (collateral fetch), with --pccs only for what it lacks' },
    pccs: { kind: 'string', arg: 'URL', group: VERIFICATION, help: "PCCS for typeA collateral (else the config's pccsUrl)" },
    out: { kind: 'string', arg: 'FILE', group: OUTPUT, help: 'the JSONL records (else stdout)' },
    'ear-out': { kind: 'string', arg: 'FILE', group: OUTPUT, help: 'after the run (needs --out): one signed EAR per update and a signed audit summary, with the key in EAR_SIGNING_KEY (docs/ear.md)' },
    checkpoint: { kind: 'string', arg: 'FILE', group: OUTPUT, help: 'written (with the output synced) at most every second and at the end (needs --out); --resume redoes what came after it' },
    resume: { kind: 'flag', group: OUTPUT, help: 'continue the run of --checkpoint FILE' },
    'progress-interval': { kind: 'number', arg: 'S', above: -1, default: 10, group: OUTPUT, help: 'seconds between progress lines when stderr is not a terminal; 0: none' },
    completeness: {
      kind: 'flag',
      group: 'completeness',
      help: 'after the scan (--node, no --shard; needs --store or --out): list the oracle data mappings (the node JWT in LEDGER_NODE_JWT) and explain every key by a scanned write; a summary line, exit 1 when incomplete, 2 when not checked (docs/completeness.md)',
    },
    'window-seconds': {
      kind: 'int',
      arg: 'S',
      min: 1,
      max: 604_800,
      default: COMPLETENESS_DEFAULTS.windowSeconds,
      group: 'completeness',
      help: `with --completeness: an unexplained key's write is looked for from ${COMPLETENESS_DEFAULTS.slackSeconds} s before its attestation timestamp to S after it`,
    },
    'max-rescans': { kind: 'int', arg: 'N', min: 0, max: 10_000, default: COMPLETENESS_DEFAULTS.maxRescans, group: 'completeness', help: 'with --completeness: unexplained keys whose window is scanned again' },
    store: {
      kind: 'string',
      arg: 'FILE',
      group: 'store',
      help: "also write each update's record into this SQLite store (the one of the server's ledger watcher, config watch.database); with --node, --from defaults to the store's scanned height + 1, and contiguous scans advance it (resume across both)",
    },
  },
  notes: ['exit: 0 all valid, 1 some invalid, 2 could not complete (or some updates could not be verified)'],
} as const satisfies CommandSpec;

export const REVERIFY_USAGE = usage(REVERIFY);

export const CHECKPOINT_FORMAT = 'oracle-verifier-checkpoint/1';

export interface Checkpoint {
  format: string;
  source: Record<string, unknown>;
  output: string;
  /** Next block height (blocks), line (jsonl) or file index (tx-dir) to process. */
  cursor: number;
  nextHeight?: number;
  outputOffset: number;
  /** With --requests-per-day: the requests spent (sent or reserved) per day. */
  requests?: BudgetState;
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

/** The batch size of a block scan's checkpoint, when it has one (anything else is runReverify's to refuse). */
function checkpointBatchSize(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const b = (JSON.parse(readFileSync(file, 'utf8')) as { source?: { batchSize?: unknown } }).source?.batchSize;
    return typeof b === 'number' && Number.isInteger(b) && b >= 1 && b <= MAX_TRANSACTION_BLOCKS_PER_CALL ? b : undefined;
  } catch {
    return undefined;
  }
}

export async function reverifyCommand(argv: readonly string[], io: ReverifyIo): Promise<number> {
  const a = parseOptions(argv, REVERIFY);
  if (a.help) {
    io.stderr(`${REVERIFY_USAGE}\n`);
    return 0;
  }
  if (a.positionals.length) throw cliError('CLI_USAGE', `reverify: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const node = a.string('node');
  const jsonl = a.string('jsonl');
  const txDir = a.string('tx-dir');
  const blocksDir = a.string('blocks-dir');
  if ([node, jsonl, txDir, blocksDir].filter((s) => s !== undefined).length !== 1) throw cliError('CLI_USAGE', 'reverify: give exactly one source: --node, --jsonl, --tx-dir or --blocks-dir');
  const saveBlocksDir = a.string('save-blocks');
  if (saveBlocksDir !== undefined && node === undefined) throw cliError('CLI_USAGE', 'reverify: --save-blocks keeps what a --node scan reads');
  const proveInclusionFlag = a.flag('prove-inclusion');
  const confirmWith = a.string('confirm-with');
  if (proveInclusionFlag && node === undefined) throw cliError('CLI_USAGE', 'reverify: --prove-inclusion reads each update\'s block from the --node it scans');
  if (confirmWith !== undefined && !proveInclusionFlag) throw cliError('CLI_USAGE', 'reverify: --confirm-with confirms the block hashes of --prove-inclusion');
  const offline = a.flag('offline');
  if (offline && (node !== undefined || a.string('pccs') !== undefined)) throw cliError('CLI_USAGE', 'reverify: --offline reads no network: a saved source (--blocks-dir, --tx-dir, --jsonl), no --node, no --pccs');
  const checkpointFile = a.string('checkpoint');
  const outFile = a.string('out');
  const resume = a.flag('resume');
  if (checkpointFile && !outFile) throw cliError('CLI_USAGE', 'reverify: --checkpoint needs --out FILE');
  const earOutFile = a.string('ear-out');
  if (earOutFile && !outFile) throw cliError('CLI_USAGE', 'reverify: --ear-out needs --out FILE (the records it signs)');
  if (resume && !checkpointFile) throw cliError('CLI_USAGE', 'reverify: --resume needs --checkpoint FILE');
  const shardText = a.string('shard');
  const shard = shardText !== undefined ? parseShard(shardText) : undefined;
  if (shard && node === undefined) throw cliError('CLI_USAGE', 'reverify: --shard applies to --node scans');
  const storeFile = a.string('store');
  const completeness = a.flag('completeness');
  if (completeness && (node === undefined || shard !== undefined)) throw cliError('CLI_USAGE', 'reverify: --completeness checks a whole --node scan (no --shard: run `completeness` after `merge` of the shards)');
  if (completeness && storeFile === undefined && outFile === undefined) throw cliError('CLI_USAGE', 'reverify: --completeness needs the scanned writes: --store FILE or --out FILE');
  if (storeFile !== undefined && jsonl !== undefined) throw cliError('CLI_USAGE', 'reverify: --store needs ledger updates (--node, --blocks-dir or --tx-dir); JSONL lines carry no transition ids');
  const perDay = a.int('requests-per-day');
  const stopWhenSpent = a.flag('stop-when-budget-spent');
  if (perDay !== undefined && node === undefined) throw cliError('CLI_USAGE', 'reverify: --requests-per-day applies to --node scans');
  if (stopWhenSpent && perDay === undefined) throw cliError('CLI_USAGE', 'reverify: --stop-when-budget-spent needs --requests-per-day');
  const toFile = a.string('to-file');
  if (toFile !== undefined && (node === undefined || a.int('to') !== undefined)) throw cliError('CLI_USAGE', 'reverify: --to-file applies to --node scans, instead of --to');

  // The verifier (pool or in-process) is built before the source so that config errors come first.
  const workersFlag = a.int('workers');
  const at = a.time('at');
  const config = a.string('config');
  const collateralDir = a.string('collateral-dir');
  const pccsUrl = a.string('pccs');
  const archiveDir = a.string('archive');
  const tcbUpdate = a.string('tcb-update') as TcbUpdatePolicy | undefined;
  if (tcbUpdate !== undefined && !(TCB_UPDATE_POLICIES as readonly string[]).includes(tcbUpdate)) throw cliError('CLI_USAGE', `reverify: --tcb-update ${JSON.stringify(tcbUpdate)}: expected early or standard`);
  if (tcbUpdate !== undefined && archiveDir === undefined) throw cliError('CLI_USAGE', 'reverify: --tcb-update applies with --archive DIR');
  const verifier = createCliVerifier({
    ...(config !== undefined ? { configPath: config } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(workersFlag !== undefined ? { workers: workersFlag } : {}),
    ...(collateralDir !== undefined ? { collateralDir } : {}),
    ...(pccsUrl !== undefined ? { pccsUrl } : {}),
    ...(archiveDir !== undefined ? { archive: { dir: archiveDir, policy: tcbUpdate ?? 'standard' } } : {}),
    ...(offline ? { offline } : {}),
  });
  let store: UpdateStore | undefined;
  try {
    // The key is checked before anything is scanned.
    const earIssuerOut = earOutFile ? await earOutIssuer(policyDigest(verifier.policy)) : undefined;
    if (storeFile !== undefined) store = openUpdateStore(resolve(storeFile));
    const programList = a.list('program');
    if (programList !== undefined && jsonl !== undefined) throw cliError('CLI_USAGE', 'reverify: --program applies to --node and --tx-dir');
    // The built-in programs and those config.json defines (ledgerPrograms); --program may name either.
    const registry = new ProgramRegistry(verifier.config.definedPrograms);
    const programs = programList !== undefined
      ? programsToFollow(programList, 'reverify --program', registry)
      : programsToFollow(verifier.config.ledgerPrograms, `config ${verifier.config.file}: ledgerPrograms`, registry);
    let source: Source;
    let scan: { scanner: BlockScanner; from: number; to: number } | undefined;
    let budget: RequestBudget | undefined;
    let plan: ((blocks: number) => string) | undefined;
    let inclusion: InclusionProver | undefined;
    if (node !== undefined) {
      // Without --from: where the store's coverage of every followed program ends (a program it
      // never scanned for needs an explicit start).
      const scans = store ? new Map(store.programScans().map((s) => [s.program, s.scannedHeight])) : undefined;
      const unscanned = scans ? programs.filter((p) => !scans.has(p)) : [];
      const scanned = scans && unscanned.length === 0 && programs.length > 0 ? Math.min(...programs.map((p) => scans.get(p)!)) : undefined;
      const from = a.int('from') ?? (scanned !== undefined ? scanned + 1 : undefined);
      if (from === undefined) {
        throw cliError('CLI_USAGE', `reverify: --node needs --from HEIGHT${store ? ` (the store has not scanned ${unscanned.length ? unscanned.join(', ') : 'anything'} yet)` : ''}`);
      }
      const rps = a.number('rps');
      if (perDay !== undefined) {
        // The saved count of the day (a resumed run), so that the budget holds across restarts.
        const saved = resume && checkpointFile !== undefined && existsSync(resolve(checkpointFile)) ? readCheckpoint(resolve(checkpointFile)).requests : undefined;
        const testDayMs = Number(process.env[TEST_DAY_MS_ENV]);
        budget = new RequestBudget({
          perDay,
          ...(Number.isInteger(testDayMs) && testDayMs > 0 ? { dayMs: testDayMs } : {}),
          // Saved ahead by about a second of requests (at most one checkpoint write a second), and
          // by at most 0.1 % of the day's budget (what a killed run may have counted but not sent).
          reserveAhead: Math.max(1, Math.min(Math.ceil(rps), Math.floor(perDay / 1000))),
          ...(saved ? { saved } : {}),
          ...(stopWhenSpent ? { stop: (message: string) => cliError('CLI_REQUEST_BUDGET_SPENT', message) } : {}),
          onWait: (message) => io.stderr(message),
          // Ctrl-C during the wait for the next day stops the run (the checkpoint keeps the count).
          interrupted: () => (io.stopRequested?.() ? cliError('CLI_REQUEST_BUDGET_SPENT', "stopped while waiting for the next day's request budget") : undefined),
        });
      }
      const choice = a.string('block-source') ?? 'auto';
      if (!(BLOCK_SOURCE_CHOICES as readonly string[]).includes(choice)) throw cliError('CLI_USAGE', `reverify: --block-source ${JSON.stringify(choice)}: expected ${BLOCK_SOURCE_CHOICES.join(', ')}`);
      const scanner = createBlockScanner({
        blockSource: choice as BlockSourceChoice,
        baseUrl: node,
        rps,
        ...(budget ? { budget } : {}),
        timeoutMs: a.int('timeout-ms')!,
        retries: a.int('retries')!,
        backoffMs: a.int('backoff-ms')!,
        // LEDGER_NODE_API_KEY in the config's liveCheck.apiKeyHeader, as the server sends it.
        headers: ledgerNodeHeaders(verifier.config.liveCheck.apiKeyHeader),
        // --completeness sends the node's JWT with its listing: cut out of what the block reads show too.
        ...(completeness && ledgerNodeJwt() !== undefined ? { secrets: [ledgerNodeJwt()!] } : {}),
      });
      let to = a.int('to');
      if (to === undefined) to = toFile !== undefined ? await pinnedEnd(resolve(toFile), async () => (await scanner.latestHeight()) + 1) : (await scanner.latestHeight()) + 1;
      if (to <= from) throw cliError('CLI_USAGE', `reverify: --to ${to} must be greater than --from ${from}`);
      const kind = await scanner.blockSource();
      // Heights are heights: a checkpoint resumes on either route, with the batches (and so the shards) it was cut in.
      const batchSize = a.int('batch') ?? (resume && checkpointFile ? checkpointBatchSize(resolve(checkpointFile)) : undefined) ?? blocksPerCall(kind);
      const note = `block source: ${blockSourceRoute(kind)} (${choice === 'auto' ? 'detected' : '--block-source'}; ${blocksPerCall(kind)} blocks per request, batches of ${batchSize})`;
      io.stderr(`${note}\n`);
      // The plan: the block source in use and the blocks one request brings (the batch).
      const scanSource = { name: blockSourceRoute(kind), blocksPerRequest: batchSize };
      const dayBudget = budget;
      plan = (blocks) =>
        planScan({
          blocks,
          blocksPerRequest: scanSource.blocksPerRequest,
          source: scanSource.name,
          rps,
          now: Date.now(),
          ...(dayBudget ? { requestsPerDay: dayBudget.perDay, spentToday: dayBudget.spent(), dayMs: dayBudget.dayMs } : {}),
        }).line;
      source = blockSource({
        note,
        scanner,
        node: scanner.client.baseUrl,
        programs,
        registry,
        from,
        to,
        batchSize,
        concurrency: a.int('concurrency')!,
        ...(shard ? { shard } : {}),
        ...(verifier.history ? { judgeAtBlock: true } : {}),
        ...(saveBlocksDir !== undefined ? { save: (b: SavedBlock) => saveBlock(resolve(saveBlocksDir), b) } : {}),
      });
      scan = { scanner, from, to };
      if (proveInclusionFlag) {
        inclusion = new InclusionProver({
          node: scanner.client,
          ...(confirmWith !== undefined ? { confirmWith: createLedgerNodeClient({ baseUrl: confirmWith, timeoutMs: a.int('timeout-ms')!, retries: a.int('retries')!, backoffMs: a.int('backoff-ms')! }) } : {}),
        });
      }
    } else if (jsonl !== undefined) {
      const f = resolve(jsonl);
      if (!existsSync(f)) throw cliError('CLI_BAD_INPUT', `--jsonl ${f}: no such file`);
      source = jsonlSource(f);
    } else if (blocksDir !== undefined) {
      source = blocksDirSource(resolve(blocksDir), programs, registry, verifier.history !== undefined);
    } else {
      source = txDirSource(resolve(txDir!), programs, registry);
    }
    const defaultInFlight = Math.max(2, verifier.workers * 4);
    const maxInFlight = Math.min(a.int('max-in-flight', defaultInFlight)!, verifier.config.maxQueue + Math.max(1, verifier.workers));
    let ended = false;
    const code = await runReverify({
      onComplete: () => (ended = true),
      source,
      registry,
      programs,
      verifier,
      maxInFlight,
      annotateInForce: !shard || shard.count === 1,
      ...(outFile ? { outFile: resolve(outFile) } : {}),
      ...(checkpointFile ? { checkpointFile: resolve(checkpointFile) } : {}),
      resume,
      ...(store ? { store } : {}),
      ...(budget ? { budget } : {}),
      ...(plan ? { plan } : {}),
      ...(inclusion ? { inclusion } : {}),
      progressIntervalMs: Math.round(a.number('progress-interval') * 1000),
      io,
    });
    // --ear-out signs what was written, with the completeness result once known.
    const signed = async (exit: number, completenessResult: string): Promise<number> => {
      if (!earIssuerOut) return exit;
      const range = scan ? { unit: 'height', from: scan.from, to: scan.to - 1 } : { unit: source.unit };
      const n = await writeEarOut({ file: resolve(earOutFile!), outFile: resolve(outFile!), issuer: earIssuerOut, policyDigest: policyDigest(verifier.policy), range, completeness: completenessResult });
      io.stderr(`ear-out: ${n} EARs and a signed summary in ${earOutFile}\n`);
      return exit;
    };
    // The completeness check of a whole scan that ended (an interrupted one is not checked).
    if (!scan) return signed(code, 'not_checked');
    if (!completeness) {
      io.stderr(`completeness: not checked — --completeness was not given\n${UNCHECKED_CAVEAT}`);
      return signed(code, 'not_checked');
    }
    if (!ended) {
      io.stderr(`completeness: not checked — the scan did not complete\n${UNCHECKED_CAVEAT}`);
      return signed(EXIT.INCOMPLETE, 'not_checked');
    }
    const checked = store ?? storeOfRecords(readRecords(resolve(outFile!)), scan.from, scan.to, programs);
    try {
      const r = await runCompleteness({
        node: node!,
        scanner: scan.scanner,
        store: checked,
        programs,
        registry,
        windowSeconds: a.int('window-seconds')!,
        maxRescans: a.int('max-rescans')!,
        rps: a.number('rps'),
        timeoutMs: a.int('timeout-ms')!,
        retries: a.int('retries')!,
        apiKeyHeader: verifier.config.liveCheck.apiKeyHeader,
      });
      io.stderr(completenessLines(r));
      return signed(Math.max(code, completenessExit(r)), r.status);
    } finally {
      if (checked !== store) checked.close();
    }
  } finally {
    store?.close();
    await verifier.close();
  }
}

export interface RunOptions {
  source: Source;
  verifier: Pick<CliVerifier, 'verify' | 'verifyMany'>;
  /** Semaphore slots: verifications (or runs of updateBatch updates) in flight at once. */
  maxInFlight: number;
  /**
   * Updates per verifyMany call (one pool task, userData hashed in one call); default
   * UPDATE_BATCH; 1: one verify call per update (the benchmark's A side).
   */
  updateBatch?: number;
  /** Replay owner transitions into measurementInForce (off for shards: merge does it). */
  annotateInForce: boolean;
  /** Proves each update record's inclusion in its block (--prove-inclusion). */
  inclusion?: Pick<InclusionProver, 'annotate'>;
  /** Where each program's measurements live (default: the built-in programs). */
  registry?: ProgramRegistry;
  /** The programs followed: the store records that the committed block ranges covered them. */
  programs?: readonly string[];
  outFile?: string;
  checkpointFile?: string;
  resume: boolean;
  /** Also commit each batch's update records (and, for contiguous block ranges, the scanned height) to this store. */
  store?: UpdateStore;
  progressIntervalMs: number;
  io: ReverifyIo;
  /** Called when the whole source was processed (not on a failure or an interruption). */
  onComplete?: () => void;
  /** The daily request budget of a --node scan: its count is saved in the checkpoint before each reservation is used. */
  budget?: RequestBudget;
  /** The plan line for the units still to do (printed before the first batch). */
  plan?: (remaining: number) => string;
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

/** Why `offset` cannot be where a run's output was made durable: not a line boundary inside `file`, or undefined. */
function outputOffsetProblem(offset: number, file: string): string | undefined {
  const size = existsSync(file) ? statSync(file).size : 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > size) return `outputOffset ${offset} is not a byte offset inside ${file} (${size} bytes)`;
  if (offset === 0) return undefined;
  const fd = openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, offset - 1);
    return last[0] === 0x0a ? undefined : `outputOffset ${offset} is not at the end of a line of ${file}`;
  } finally {
    closeSync(fd);
  }
}

/** Runs of updates' worth of batches that may wait for their verification at once (see maxPending). */
const PENDING_RUNS = 4;

/** Runs a source to completion (or to a stop request); returns the exit code. */
export async function runReverify(o: RunOptions): Promise<number> {
  const { source, io } = o;
  const summary = new Summary();
  const state = new MeasurementState(o.registry);
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
      const problem = source.cursorProblem(c.cursor) ?? outputOffsetProblem(c.outputOffset, o.outFile!);
      if (problem) throw cliError('CLI_CHECKPOINT_INVALID', `checkpoint ${o.checkpointFile}: ${problem}: it was not written by this run; delete it to start over`);
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
  // The output offset that goes with `cursor` (both advance together, once written batches are
  // made durable: the output synced, then the checkpoint saved, at most every DURABLE_EVERY_MS and
  // at the end, so that a scan of small batches is not one fdatasync and one atomic write per
  // request; a crash loses at most that long of work, redone on --resume).
  let committedOffset = startOffset;
  let written = { cursor, offset: startOffset };
  let durableAt = Date.now();
  // Written batches wait at most DURABLE_EVERY_MS, also while the scan waits (a slow node).
  let durableTimer: NodeJS.Timeout | undefined;
  let durableFailure: unknown;
  const makeDurable = () => {
    clearTimeout(durableTimer);
    durableTimer = undefined;
    if (written.cursor === cursor && written.offset === committedOffset) return;
    sink.sync();
    cursor = written.cursor;
    committedOffset = written.offset;
    durableAt = Date.now();
    saveCheckpoint(false);
  };
  const saveCheckpoint = (done: boolean) => {
    if (!o.checkpointFile) return;
    const c: Checkpoint = {
      format: CHECKPOINT_FORMAT,
      source: source.identity,
      output: o.outFile!,
      cursor,
      ...(source.unit === 'blocks' ? { nextHeight: cursor } : {}),
      outputOffset: committedOffset,
      done,
      ...(o.budget ? { requests: o.budget.state() } : {}),
      updatedAt: new Date().toISOString(),
    };
    writeJsonAtomic(o.checkpointFile, c);
  };
  const remaining = source.remaining(cursor);
  if (o.budget) {
    // From now on every reservation of the budget is saved before it is used (the tip read
    // before this point is in this first save).
    o.budget.setPersist(() => saveCheckpoint(false));
    saveCheckpoint(false);
  }
  if (o.plan && remaining !== undefined) io.stderr(o.plan(remaining));
  const progress = new Progress({ ...(remaining !== undefined ? { total: remaining } : {}), unit: source.unit, tty: io.tty, intervalMs: o.progressIntervalMs, ...(io.tty ? {} : { write: io.stderr }) });
  const sem = new Semaphore(o.maxInFlight);
  const stop = () => io.stopRequested?.() ?? false;

  /** `updates`: how many of the batch's items are updates (counted once, for the pending bound). */
  type Pending = { batch: Batch; records: Promise<OutputRecord[]>; lastSeq: number; updates: number };
  const perCall = o.updateBatch ?? UPDATE_BATCH;
  // Runs of perCall updates across consecutive batches (one pool task each).
  const runs = perCall > 1 ? new UpdateRuns(perCall, (pairs) => sem.run(() => o.verifier.verifyMany(pairs))) : undefined;
  const start = (batch: Batch): Pending => {
    const ticket = runs
      ? runs.add(batch.items)
      : {
          lastSeq: -1,
          records: Promise.all(
            batch.items.map((it) =>
              it.type === 'update' ? sem.run(() => o.verifier.verify(it.userData, it.report, undefined, it.asOf)).then((out) => updateRecordOf(it, out)) : Promise.resolve(it.record),
            ),
          ),
        };
    const records = o.inclusion ? ticket.records.then((recs) => o.inclusion!.annotate(recs)) : ticket.records;
    records.catch(() => undefined); // awaited in order by flush
    return { batch, lastSeq: ticket.lastSeq, records, updates: batch.items.reduce((n, it) => n + (it.type === 'update' ? 1 : 0), 0) };
  };
  const flush = async (p: Pending) => {
    if (durableFailure !== undefined) throw durableFailure;
    runs?.needed(p.lastSeq);
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
    o.store?.commit(storedUpdates(recs), source.unit === 'blocks' ? { start: p.batch.cursor - p.batch.units, end: p.batch.cursor - 1 } : undefined, undefined, o.programs);
    written = { cursor: p.batch.cursor, offset: sink.offset };
    const due = durableAt + DURABLE_EVERY_MS - Date.now();
    if (due <= 0) makeDurable();
    else durableTimer ??= setTimeout(() => {
      try {
        makeDurable();
      } catch (e) {
        durableFailure ??= e; // thrown by the next batch's flush, or at the end
      }
    }, due).unref();
    progress.add(p.batch.units, updates);
  };

  let failure: unknown;
  const pending: Pending[] = [];
  // Verification of later batches overlaps with the writing of earlier ones; the output order is
  // the source order. Batches waiting for their verification are bounded; with runs across batches, by enough
  // batches to fill several runs at mainnet's density (one or two updates a batch), so that more
  // than one run is in flight and every worker has one (with only one run's worth of batches
  // pending, the oldest batch forced its run out alone and one of 2 workers sat idle: 22 k against
  // 31–38 k blocks/s on /blocks/transactions, BENCHMARKS.md "Audit at mainnet scale").
  // The bound is on batches and, with runs, on the updates they hold: a dense stretch (many updates
  // a batch) is written as soon as several runs' worth wait, so that output and checkpoints keep up.
  const maxPending = Math.max(2, Math.ceil(o.maxInFlight / 16) + 1, runs ? perCall * PENDING_RUNS : 0);
  const maxPendingUpdates = runs ? perCall * PENDING_RUNS : Infinity;
  let pendingUpdates = 0;
  const flushOldest = async () => {
    const p = pending.shift()!;
    pendingUpdates -= p.updates;
    await flush(p);
  };
  try {
    for await (const batch of source.batches(cursor, stop)) {
      const p = start(batch);
      pending.push(p);
      pendingUpdates += p.updates;
      while (pending.length > maxPending || (pending.length > 2 && pendingUpdates > maxPendingUpdates)) await flushOldest();
      if (stop()) break;
    }
  } catch (e) {
    failure = e;
  }
  try {
    while (pending.length) await flushOldest();
  } catch (e) {
    failure ??= e;
  }
  // What was written is whole (batches are written in order and completely): durable before the
  // end, whatever ended the run.
  try {
    if (durableFailure !== undefined) throw durableFailure;
    makeDurable();
  } catch (e) {
    failure ??= e;
  }
  progress.stop();
  const complete = failure === undefined && !stop();
  if (complete) {
    saveCheckpoint(true);
    o.onComplete?.();
  }
  await sink.close();
  io.stderr(summary.table());
  if (source.note) io.stderr(`${source.note}\n`);
  if (o.budget) io.stderr(`requests to the node: ${o.budget.spent()} of ${o.budget.perDay} on the day from ${o.budget.dayStart()} (UTC)\n`);
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
