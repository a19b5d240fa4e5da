/**
 * `oracle-verifier merge OUT IN…`: merges reverify outputs (e.g. shards): records deduplicated by
 * transaction id + transition id (else by id), stably sorted by block height (records without a
 * height keep their order, after the others), measurementInForce recomputed by replaying the
 * owner records in ledger order (programs as the built-in registry and config.json's ledgerPrograms
 * define them: which program holds each owner transition's mappings), summary recomputed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions, usage, type CommandSpec } from './args.js';
import { cliError } from './errors.js';
import { fileProblem } from './inputFile.js';
import { FileSink, readRecords } from './output.js';
import { canonical, type OutputRecord } from '../ledger/records/updateRecord.js';
import { MeasurementState } from '../ledger/records/measurementState.js';
import { Summary } from './summary.js';
import { loadCliConfig } from './context.js';
import { ProgramRegistry } from '../ledger/programs.js';

export const MERGE = {
  command: 'merge',
  synopsis: 'OUT IN [IN…]',
  options: {
    config: { kind: 'string', arg: 'PATH', help: "config file whose ledgerPrograms define programs beside the built-in ones (else ./config.json, else the bundled one)" },
    shards: {
      kind: 'int',
      arg: 'N',
      min: 1,
      max: 100_000,
      help: 'an IN holding {i} stands for N files, {i} = 0 … N-1 (e.g. shard-{i}.jsonl: the outputs of reverify --shard i/N; the Kubernetes merge Job)',
    },
    checkpoints: {
      kind: 'string',
      arg: 'PATTERN',
      help: "with --shards: the reverify checkpoint of shard {i} (e.g. shard-{i}.ckpt); the merge refuses (exit 2, CLI_SHARDS_INCOMPLETE) unless every shard i/N is done, of one scan (same node, programs, range and batch) and wrote its IN: a partial audit is never merged as a whole one",
    },
  },
  arguments: [
    ['OUT', 'the merged JSONL file to write (not one of the inputs)'],
    ['IN', 'reverify outputs (JSONL), e.g. the shards of one scan'],
  ],
  notes: ['exit: 0 all valid, 1 some invalid, 2 some could not be verified'],
} as const satisfies CommandSpec;

export const MERGE_USAGE = usage(MERGE);

export function mergeRecords(inputs: readonly OutputRecord[][], registry: ProgramRegistry = new ProgramRegistry()): OutputRecord[] {
  const seen = new Set<string>();
  const all: { r: OutputRecord; n: number }[] = [];
  let n = 0;
  for (const list of inputs) {
    for (const r of list) {
      const key = r.transactionId !== undefined || r.transitionId !== undefined ? `t:${r.transactionId ?? ''}/${r.transitionId ?? ''}` : r.id !== undefined ? `i:${r.id}` : undefined;
      if (key !== undefined) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      all.push({ r, n: n++ });
    }
  }
  const h = (r: OutputRecord) => r.blockHeight ?? Number.POSITIVE_INFINITY;
  all.sort((x, y) => h(x.r) - h(y.r) || x.n - y.n);
  const state = new MeasurementState(registry);
  // Every update is annotated, as an unsharded reverify run annotates it: with its measurement in
  // force, or "unknown" and why when no owner transition setting it was replayed.
  return all.map(({ r }) => {
    if (r.kind === 'measurement') {
      state.apply(r);
      return canonical(r);
    }
    return state.annotate(r);
  });
}

export async function mergeCommand(argv: readonly string[], io: { stderr: (s: string) => void }): Promise<number> {
  const a = parseOptions(argv, MERGE);
  if (a.help) {
    io.stderr(`${MERGE_USAGE}\n`);
    return 0;
  }
  const [out, ...given] = a.positionals;
  const shards = a.int('shards');
  if (shards !== undefined && !given.some((i) => i.includes('{i}'))) throw cliError('CLI_USAGE', 'merge: --shards N expands an IN holding {i}, and none does');
  if (shards === undefined && given.some((i) => i.includes('{i}'))) throw cliError('CLI_USAGE', 'merge: an IN holding {i} needs --shards N');
  const ins = given.flatMap((i) => (shards !== undefined && i.includes('{i}') ? Array.from({ length: shards }, (_, k) => i.split('{i}').join(String(k))) : [i]));
  if (!out || ins.length === 0) throw cliError('CLI_USAGE', MERGE_USAGE);
  const outPath = resolve(out);
  if (ins.some((i) => resolve(i) === outPath)) throw cliError('CLI_USAGE', 'merge: OUT must not be one of the inputs');
  const checkpoints = a.string('checkpoints');
  if (checkpoints !== undefined) {
    if (shards === undefined || !checkpoints.includes('{i}')) throw cliError('CLI_USAGE', 'merge: --checkpoints PATTERN needs --shards N and {i} in PATTERN');
    const outputs = given.filter((i) => i.includes('{i}'));
    if (outputs.length !== 1) throw cliError('CLI_USAGE', 'merge: --checkpoints needs exactly one IN holding {i} (the shard outputs)');
    const scan = checkShards(checkpoints, outputs[0]!, shards);
    io.stderr(`shards: ${shards} of one scan of ${scan}, each complete\n`);
  }
  const registry = new ProgramRegistry(loadCliConfig(a.string('config')).definedPrograms);
  const merged = mergeRecords(ins.map((f) => readRecords(resolve(f))), registry);
  const summary = new Summary();
  for (const r of merged) summary.add(r);
  const sink = new FileSink(outPath, 0);
  await sink.write(merged.map((r) => `${JSON.stringify(r)}\n`).join(''));
  sink.sync();
  await sink.close();
  io.stderr(summary.table());
  return summary.exitCode();
}

/**
 * Every shard i/N of one block scan is done and wrote its output: its checkpoint (PATTERN with {i})
 * says `done`, shard `i/N`, output = the IN of shard i, and the same node, programs, range and batch
 * as shard 0. Returns the scan as shown; throws CLI_SHARDS_INCOMPLETE naming the first shard that is not.
 */
function checkShards(pattern: string, outputPattern: string, n: number): string {
  const fail = (msg: string) => cliError('CLI_SHARDS_INCOMPLETE', `merge: ${msg}; not merged (a partial audit is not a whole one)`);
  let first: Record<string, unknown> | undefined;
  for (let i = 0; i < n; i++) {
    const file = resolve(pattern.split('{i}').join(String(i)));
    let c: { source?: Record<string, unknown>; output?: string; done?: boolean; cursor?: number };
    try {
      c = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw fail(`shard ${i}/${n}: no readable checkpoint: ${(e as NodeJS.ErrnoException).code === undefined ? `${file} (${(e as Error).message})` : fileProblem(file, e)}`);
    }
    const { shard, ...scan } = c.source ?? {};
    if (scan.kind !== 'blocks' || shard !== `${i}/${n}`) throw fail(`${file} is of ${JSON.stringify(c.source)}, not shard ${i}/${n} of a block scan`);
    if (c.output !== resolve(outputPattern.split('{i}').join(String(i)))) throw fail(`${file} wrote ${c.output}, not the IN of shard ${i}`);
    if (c.done !== true) throw fail(`shard ${i}/${n} is not done (its checkpoint is at height ${c.cursor}; resume it)`);
    first ??= scan;
    if (JSON.stringify(scan) !== JSON.stringify(first)) throw fail(`shard ${i}/${n} scanned ${JSON.stringify(scan)}, shard 0 ${JSON.stringify(first)}`);
  }
  return `[${String(first!.from)}, ${String(first!.to)}) of ${String(first!.node)}`;
}
