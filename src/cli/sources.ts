/**
 * Inputs of `reverify`, each a sequence of batches with a resumable cursor:
 * - blocks of a ledger node, [from, to) cut into batches of `batchSize` heights (each read through
 *   the scanner's block source, `/blocks/transactions` or `/blocks`, in requests of its size),
 *   optionally only the batches of one shard (batch index mod n = i), fetched `concurrency` at a time
 *   and handed on in height order; cursor = next block height. The identity leaves the block
 *   source out: the same heights give the same records on either route, so a run resumes on
 *   either;
 * - a JSONL file of `{ userData, report, id? }` lines; cursor = next line number (0-based);
 * - a directory of saved transaction JSON files (sorted by name); cursor = next file index;
 * - a directory of saved blocks (savedBlocks.ts, `--blocks-dir`); cursor = next file index.
 */
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliError } from './errors.js';
import { fileProblem } from './inputFile.js';
import { itemsOfTransaction, type LedgerItem } from '../ledger/records/transitions.js';
import { judgeAtBlockTimes, timesOfBlocks } from '../ledger/records/blockTimes.js';
import { blockTimestamp } from '../ledger/node/mappingListing.js';
import type { ProgramRegistry } from '../ledger/programs.js';
import type { BlockScanner } from '../ledger/node/blocks/fetchBlocks.js';
import { canonical } from '../ledger/records/updateRecord.js';

/** A block as --save-blocks keeps it (savedBlocks.ts): its followed transactions as read, and its timestamp when known. */
export interface SavedBlock {
  height: number;
  timestamp?: number;
  transactions: unknown[];
}

export interface Batch {
  /** Cursor after this batch. */
  cursor: number;
  items: LedgerItem[];
  /** Units (blocks, lines, files) this batch covers. */
  units: number;
}

export interface Source {
  /** What a checkpoint must match to be resumed with this source. */
  identity: Record<string, unknown>;
  unit: string;
  /** A line said after the summary (the block source in use). */
  note?: string;
  /** Units still to do from `cursor` (for the ETA), when known. */
  remaining(cursor: number): number | undefined;
  initialCursor: number;
  /** Why `cursor` cannot be where a run of this source stopped (a checkpoint's, before resuming), or undefined. */
  cursorProblem(cursor: number): string | undefined;
  batches(cursor: number, stop: () => boolean): AsyncGenerator<Batch>;
}

/** A cursor that is no whole number from `first` to `last` (undefined: no bound known), as cursorProblem says it. */
export function outsideRange(cursor: number, first: number, last: number | undefined): string | undefined {
  if (!Number.isSafeInteger(cursor) || cursor < first || (last !== undefined && cursor > last)) {
    return `cursor ${cursor} is not a whole number from ${first} to ${last ?? 'the end'}`;
  }
  return undefined;
}

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(s: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index >= count) throw cliError('CLI_USAGE', `--shard ${JSON.stringify(s)}: expected i/n with 0 ≤ i < n (e.g. 0/4 … 3/4)`);
  return { index, count };
}

export function blockSource(o: {
  note?: string;
  scanner: BlockScanner;
  programs: readonly string[];
  registry?: ProgramRegistry;
  from: number;
  to: number;
  batchSize: number;
  concurrency: number;
  shard?: Shard;
  node: string;
  /** Judge each update as it stood at its block's timestamp (a collateral archive is configured: docs/history.md). */
  judgeAtBlock?: boolean;
  /** Keeps each block holding a followed transition, as read (--save-blocks: savedBlocks.ts). */
  save?: (b: SavedBlock) => void;
}): Source {
  const { from, to, batchSize } = o;
  const shard = o.shard ?? { index: 0, count: 1 };
  /** Start heights of this shard's batches at or after `cursor` (cursors are batch boundaries). */
  const starts = (cursor: number): number[] => {
    const out: number[] = [];
    for (let k = 0, s = from; s < to; k++, s += batchSize) if (k % shard.count === shard.index && s >= cursor) out.push(s);
    return out;
  };
  const endOf = (s: number) => Math.min(to, s + batchSize);
  return {
    identity: { kind: 'blocks', node: o.node, programs: o.programs, from, to, batchSize, shard: `${shard.index}/${shard.count}` },
    unit: 'blocks',
    ...(o.note !== undefined ? { note: o.note } : {}),
    initialCursor: from,
    cursorProblem: (cursor) => outsideRange(cursor, from, to) ?? (cursor !== to && (cursor - from) % batchSize !== 0 ? `cursor ${cursor} is not the start of a batch of ${batchSize} blocks from ${from}` : undefined),
    remaining: (cursor) => starts(cursor).reduce((n, s) => n + endOf(s) - s, 0),
    async *batches(cursor, stop) {
      const list = starts(cursor);
      const inflight: Promise<Batch>[] = [];
      let next = 0;
      const launch = () => {
        const s = list[next++]!;
        const e = endOf(s);
        const p = o.scanner.fetchRange(s, e).then(async (blocks) => {
          const items: LedgerItem[] = [];
          const kept: SavedBlock[] = [];
          for (const b of blocks) {
            const read: unknown[] = [];
            for (const tx of b.transactions) {
              const its = itemsOfTransaction(tx, o.programs, b.height, o.registry);
              if (its.length) read.push(tx);
              items.push(...its);
            }
            if (read.length) kept.push({ height: b.height, ...(b.timestamp !== undefined ? { timestamp: b.timestamp } : {}), transactions: read });
          }
          if (o.judgeAtBlock) await judgeAtBlockTimes(items, timesOfBlocks(blocks), (h) => blockTimestamp(o.scanner.client, h));
          if (o.save) {
            // The timestamps read for judging (the transactions route's headers) are kept too.
            const stamped = new Map(items.flatMap((it) => (it.type === 'update' && it.base.blockHeight !== undefined && it.base.blockTimestamp !== undefined ? [[it.base.blockHeight, Date.parse(it.base.blockTimestamp) / 1000] as const] : [])));
            for (const k of kept) o.save(k.timestamp === undefined && stamped.has(k.height) ? { ...k, timestamp: stamped.get(k.height)! } : k);
          }
          return { cursor: e, items, units: e - s };
        });
        p.catch(() => undefined); // surfaced when awaited in order
        inflight.push(p);
      };
      while (next < list.length && inflight.length < o.concurrency) launch();
      while (inflight.length > 0) {
        const b = await inflight.shift()!;
        if (!stop() && next < list.length) launch();
        yield b;
        if (stop()) return;
      }
    },
  };
}

function jsonlItem(line: string, lineNo: number, file: string): LedgerItem | undefined {
  if (line.trim() === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    v = undefined;
  }
  const o = v as { userData?: unknown; report?: unknown; id?: unknown } | undefined;
  const id = o && (typeof o.id === 'string' || typeof o.id === 'number') ? String(o.id) : undefined;
  if (!o || typeof o !== 'object' || typeof o.userData !== 'string' || typeof o.report !== 'string') {
    return {
      type: 'update-malformed',
      record: canonical({
        id: id ?? `${file}:${lineNo + 1}`,
        kind: 'unknown',
        reportValid: false,
        errorCode: 'CLI_BAD_INPUT',
        errorString: `${file}:${lineNo + 1}: expected a JSON object with string userData and report`,
        measurements: {},
      }),
    };
  }
  return { type: 'update', base: id === undefined ? {} : { id }, userData: o.userData, report: o.report };
}

export function jsonlSource(file: string, batchLines = 50): Source {
  return {
    identity: { kind: 'jsonl', file },
    unit: 'lines',
    initialCursor: 0,
    cursorProblem: (cursor) => outsideRange(cursor, 0, undefined),
    remaining: () => undefined,
    async *batches(cursor, stop) {
      const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      let lineNo = 0;
      let items: LedgerItem[] = [];
      let units = 0;
      try {
        for await (const line of rl) {
          const n = lineNo++;
          if (n < cursor) continue;
          const it = jsonlItem(line, n, file);
          if (it) items.push(it);
          units++;
          if (units >= batchLines) {
            yield { cursor: lineNo, items, units };
            items = [];
            units = 0;
            if (stop()) return;
          }
        }
      } catch (e) {
        throw cliError('CLI_BAD_INPUT', fileProblem(file, e));
      } finally {
        rl.close();
      }
      if (units > 0) yield { cursor: lineNo, items, units };
    },
  };
}

/** The names in `dir` that `keep` keeps (a source's saved files); `flag` names the option in the error. */
export function savedFiles(flag: string, dir: string, keep: (name: string) => boolean): string[] {
  try {
    return readdirSync(dir).filter(keep);
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `${flag}: ${fileProblem(dir, e).replace('no such file', 'no such directory')}`);
  }
}

/** One saved JSON file of a source, parsed; `flag` names the option in the error. */
export function savedJson(flag: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `${flag}: ${file} is not readable JSON (${(e as Error).message})`);
  }
}

export function txDirSource(dir: string, programs: readonly string[], registry?: ProgramRegistry, batchFiles = 50): Source {
  const files = savedFiles('--tx-dir', dir, (f) => f.endsWith('.json')).sort();
  return {
    identity: { kind: 'tx-dir', dir, programs, files: files.length },
    unit: 'files',
    initialCursor: 0,
    cursorProblem: (cursor) => outsideRange(cursor, 0, files.length),
    remaining: (cursor) => Math.max(0, files.length - cursor),
    async *batches(cursor, stop) {
      for (let s = cursor; s < files.length; s += batchFiles) {
        const items: LedgerItem[] = [];
        const e = Math.min(files.length, s + batchFiles);
        for (const f of files.slice(s, e)) {
          const v = savedJson('--tx-dir', join(dir, f));
          // A file may hold one transaction or an array of them (e.g. /block/{h}/transactions).
          for (const tx of Array.isArray(v) ? v : [v]) items.push(...itemsOfTransaction(tx, programs, undefined, registry));
        }
        yield { cursor: e, items, units: e - s };
        if (stop()) return;
      }
    },
  };
}
