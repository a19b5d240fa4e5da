/**
 * `oracle-verifier completeness`: the completeness check (docs/completeness.md) of a finished scan
 * (after `merge` of shards, or of a store), and the line `reverify --completeness` adds to its
 * summary. It lists the oracle data mappings of the followed programs from the node (its JWT
 * route: LEDGER_NODE_JWT, sent as `Authorization: Bearer …` with the listing alone, never shown),
 * explains every key by a scanned write, places each unexplained key in a block window by its
 * attestation timestamp and scans that window again. Exit: 0 complete, 1 incomplete, 2 not checked.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions, usage, type CommandSpec } from './args.js';
import { cliError, EXIT } from './errors.js';
import { loadCliConfig } from './context.js';
import { readRecords } from './output.js';
import { ledgerNodeHeaders, ledgerNodeJwt } from '../upstream/credentials.js';
import { createBlockScanner, type BlockScanner } from '../ledger/node/blocks/fetchBlocks.js';
import { createLedgerNodeClient } from '../ledger/node/client.js';
import { MAX_LISTING_BYTES } from '../ledger/node/mappingListing.js';
import { ProgramRegistry } from '../ledger/programs.js';
import { programsToFollow } from '../ledger/records/transitions.js';
import type { CompletenessResult } from '../ledger/records/completeness.js';
import type { OutputRecord } from '../ledger/records/updateRecord.js';
import { openUpdateStore, type UpdateStore } from '../ledger/store/updateStore.js';
import { checkCompleteness, COMPLETENESS_DEFAULTS } from '../ledger/watch/completeness.js';
import { storedUpdates } from '../ledger/watch/verifyUpdates.js';
import { RateLimiter } from '../rateLimit.js';

const SCAN = 'ledger node';
const CHECK = 'check';

export const COMPLETENESS = {
  command: 'completeness',
  synopsis: '--node URL (--store FILE | --records FILE --to H) [options]',
  options: {
    node: { kind: 'string', arg: 'URL', required: true, group: SCAN, help: "the ledger node (one's own snarkOS: the listing needs its JWT in the environment variable LEDGER_NODE_JWT)" },
    store: { kind: 'string', arg: 'FILE', group: 'scanned writes (one)', help: 'the SQLite store of the scan (reverify --store, or the watcher\'s watch.database)' },
    records: { kind: 'string', arg: 'FILE', group: 'scanned writes (one)', help: 'the JSONL records of the scan (reverify --out, or merge OUT of its shards)' },
    from: { kind: 'int', arg: 'H', min: 0, max: Number.MAX_SAFE_INTEGER, default: 0, group: 'scanned writes (one)', help: 'with --records: the first height the scan read' },
    to: { kind: 'int', arg: 'H', min: 1, max: Number.MAX_SAFE_INTEGER, group: 'scanned writes (one)', help: 'with --records: the end height of the scan (not scanned)' },
    program: { kind: 'list', arg: 'NAME', group: CHECK, help: "the programs the scan followed (else the config's ledgerPrograms, else every known program)" },
    config: { kind: 'string', arg: 'PATH', group: CHECK, help: 'config file (ledgerPrograms; else ./config.json, else the bundled one)' },
    'window-seconds': {
      kind: 'int',
      arg: 'S',
      min: 1,
      max: 604_800,
      default: COMPLETENESS_DEFAULTS.windowSeconds,
      group: CHECK,
      help: "an unexplained key's write is looked for up to S after its attestation timestamp",
    },
    'slack-seconds': {
      kind: 'int',
      arg: 'S',
      min: 0,
      max: 86_400,
      default: COMPLETENESS_DEFAULTS.slackSeconds,
      group: CHECK,
      help: "a window starts S before the attestation timestamp (the notarizer's clock against the chain's)",
    },
    'max-rescans': { kind: 'int', arg: 'N', min: 0, max: 10_000, default: COMPLETENESS_DEFAULTS.maxRescans, group: CHECK, help: 'unexplained keys whose window is placed and scanned again' },
    json: { kind: 'string', arg: 'FILE', group: CHECK, help: 'also write the whole result (every unexplained and missing key) as JSON' },
    rps: { kind: 'number', arg: 'N', above: 0, default: 5, group: SCAN, help: 'requests per second to the node' },
    retries: { kind: 'int', arg: 'N', min: 0, max: 100, default: 5, group: SCAN, help: 'retries of a failed request' },
    'timeout-ms': { kind: 'int', arg: 'MS', min: 100, max: 600_000, default: 30_000, group: SCAN, help: 'timeout of a request' },
  },
  notes: [
    'exit: 0 complete (every key of the listed mappings explained by its last scanned write, no scanned key missing), 1 incomplete, 2 not checked (no JWT, listing refused or not served, no mapping of the followed programs on the node, node down): only 0 says complete',
  ],
} as const satisfies CommandSpec;

export const COMPLETENESS_USAGE = usage(COMPLETENESS);

export interface CompletenessRun {
  node: string;
  scanner: BlockScanner;
  store: UpdateStore;
  programs: readonly string[];
  registry: ProgramRegistry;
  windowSeconds: number;
  /** Default COMPLETENESS_DEFAULTS.slackSeconds. */
  slackSeconds?: number;
  maxRescans: number;
  rps: number;
  timeoutMs: number;
  retries: number;
  /** The node's API key header (liveCheck.apiKeyHeader). */
  apiKeyHeader: string;
  env?: NodeJS.ProcessEnv;
}

/** The check against `store`, listing through a client that sends the node's JWT (none set: not_checked). */
export async function runCompleteness(o: CompletenessRun): Promise<CompletenessResult> {
  const env = o.env ?? process.env;
  const jwt = ledgerNodeJwt(env);
  const limiter = new RateLimiter(o.rps);
  const listing =
    jwt === undefined
      ? undefined
      : createLedgerNodeClient({
          baseUrl: o.node,
          timeoutMs: o.timeoutMs,
          retries: o.retries,
          acquire: () => limiter.acquire(),
          headers: { ...ledgerNodeHeaders(o.apiKeyHeader, env), authorization: `Bearer ${jwt}` },
          secrets: [jwt],
          maxBodyBytes: MAX_LISTING_BYTES,
        });
  return checkCompleteness({
    ...(listing ? { listing } : {}),
    scanner: o.scanner,
    store: o.store,
    programs: o.programs,
    registry: o.registry,
    windowSeconds: o.windowSeconds,
    ...(o.slackSeconds !== undefined ? { slackSeconds: o.slackSeconds } : {}),
    maxRescans: o.maxRescans,
  });
}

/** A store in memory holding the writes of these records, scanned over [from, to). */
export function storeOfRecords(records: readonly OutputRecord[], from: number, to: number, programs: readonly string[]): UpdateStore {
  const store = openUpdateStore(':memory:');
  store.commit(storedUpdates(records), { start: from, end: to - 1 }, undefined, programs);
  return store;
}

const MAX_SHOWN = 10;

/** The summary line (and up to 10 lines of detail) of a result. */
/** Said after every scan whose completeness was not checked: what the records cannot show. */
export const UNCHECKED_CAVEAT = "  the records hold what the node served: a write it left out of its answers is missing here without notice (--completeness, with the node's JWT in LEDGER_NODE_JWT, checks the node's answers against its mappings)\n";

export function completenessLines(r: CompletenessResult): string {
  const deployed = r.mappings.filter((m) => !m.uninitialized).length;
  const maps = `${deployed} mapping${deployed === 1 ? '' : 's'}${deployed < r.mappings.length ? ` (${r.mappings.length - deployed} more not deployed on this network)` : ''}`;
  if (r.status === 'not_checked') return `completeness: not checked — ${r.reason ?? 'no reason given'}${r.errorCode ? ` (${r.errorCode})` : ''}\n${UNCHECKED_CAVEAT}`;
  const extra = [
    ...(r.explainedByUnattested ? [`${r.explainedByUnattested} by an unattested write`] : []),
    ...(r.explainedByValue ? [`${r.explainedByValue} by value alone (key scheme not established)`] : []),
    ...(r.afterScan ? [`${r.afterScan} written after the scanned height, found by the rescan`] : []),
  ];
  const tail = extra.length ? ` (${extra.join('; ')})` : '';
  if (r.status === 'complete') return `completeness: complete — ${r.keys} keys in ${maps}, all explained by scanned writes${tail}\n`;
  const lines = [`completeness: incomplete — ${r.unexplainedCount} of ${r.keys} keys in ${maps} unexplained, ${r.missingCount} stored key${r.missingCount === 1 ? '' : 's'} missing on chain${tail}`];
  for (const k of r.unexplained.slice(0, MAX_SHOWN)) {
    const where = k.window ? `; window ${k.window.fromHeight}..${k.window.toHeight}` : '';
    const rescan = !k.rescan
      ? ''
      : k.rescan.status === 'found'
        ? `; rescan found ${k.rescan.found!.map((f) => `${f.program}/${f.function} in block ${f.blockHeight} (transaction ${f.transactionId})${f.afterScan ? ', after the scanned height' : ''}`).join(', ')}`
        : `; rescan ${k.rescan.status.replace('_', ' ')}${k.rescan.reason ? `: ${k.rescan.reason}` : ''}`;
    lines.push(`  unexplained ${k.program}/${k.mapping}[${k.key}] = ${k.value}${where}${rescan}`);
  }
  for (const m of r.missing.slice(0, MAX_SHOWN)) {
    lines.push(`  missing ${m.program}/${m.mapping}[${m.key}]: written by ${m.lastWrite.program}/${m.lastWrite.function} in block ${m.lastWrite.blockHeight} (transaction ${m.lastWrite.transactionId})`);
  }
  const more = r.unexplainedCount + r.missingCount - Math.min(MAX_SHOWN, r.unexplained.length) - Math.min(MAX_SHOWN, r.missing.length);
  if (more > 0) lines.push(`  … and ${more} more (--json FILE, or GET /ledger/completeness of a watcher)`);
  return `${lines.join('\n')}\n`;
}

export function completenessExit(r: CompletenessResult): number {
  return r.status === 'complete' ? EXIT.ALL_VALID : r.status === 'incomplete' ? EXIT.SOME_INVALID : EXIT.INCOMPLETE;
}

export async function completenessCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void; env?: NodeJS.ProcessEnv }): Promise<number> {
  const a = parseOptions(argv, COMPLETENESS);
  if (a.help) {
    io.stderr(`${COMPLETENESS_USAGE}\n`);
    return 0;
  }
  if (a.positionals.length) throw cliError('CLI_USAGE', `completeness: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const storeFile = a.string('store');
  const recordsFile = a.string('records');
  if ((storeFile === undefined) === (recordsFile === undefined)) throw cliError('CLI_USAGE', 'completeness: give the scanned writes: --store FILE or --records FILE');
  const to = a.int('to');
  if (recordsFile !== undefined && to === undefined) throw cliError('CLI_USAGE', 'completeness: --records needs --to H, the end height of the scan that wrote them');
  const config = loadCliConfig(a.string('config'));
  const registry = new ProgramRegistry(config.definedPrograms);
  const programList = a.list('program');
  const programs = programList !== undefined ? programsToFollow(programList, 'completeness --program', registry) : programsToFollow(config.ledgerPrograms, `config ${config.file}: ledgerPrograms`, registry);
  const node = a.string('node')!;
  const common = { rps: a.number('rps'), timeoutMs: a.int('timeout-ms')!, retries: a.int('retries')! };
  // The JWT the listing sends is cut out of what the block reads show too (a node may echo it in any answer).
  const jwt = ledgerNodeJwt(io.env ?? process.env);
  const scanner = createBlockScanner({
    baseUrl: node,
    ...common,
    backoffMs: 500,
    headers: ledgerNodeHeaders(config.liveCheck.apiKeyHeader, io.env ?? process.env),
    ...(jwt !== undefined ? { secrets: [jwt] } : {}),
  });
  const store = storeFile !== undefined ? openUpdateStore(resolve(storeFile)) : storeOfRecords(readRecords(resolve(recordsFile!)), a.int('from')!, to!, programs);
  try {
    const r = await runCompleteness({
      node,
      scanner,
      store,
      programs,
      registry,
      windowSeconds: a.int('window-seconds')!,
      slackSeconds: a.int('slack-seconds')!,
      maxRescans: a.int('max-rescans')!,
      ...common,
      apiKeyHeader: config.liveCheck.apiKeyHeader,
      ...(io.env ? { env: io.env } : {}),
    });
    const json = a.string('json');
    if (json !== undefined) writeFileSync(resolve(json), `${JSON.stringify(r, null, 2)}\n`);
    io.stderr(completenessLines(r));
    return completenessExit(r);
  } finally {
    store.close();
  }
}
