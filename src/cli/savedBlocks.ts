/**
 * Saved blocks: what an audit read from its node, kept so that the same records can be made again
 * offline (`reverify --node … --save-blocks DIR`, then `reverify --offline --blocks-dir DIR`).
 * One file per block that holds a followed transition, `<height>.json`:
 *   { "height": H, "timestamp": S (Unix seconds, when the run knew it), "transactions": [...] }
 * with the block's transactions that the record pipeline reads (those with a followed transition),
 * each exactly as the node served it. Read back, they give the same ledger items in the same order
 * (heights ascending, transactions in block order), so the records are the same bytes
 * (test/e2e/cli-reverify-offline.test.ts).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliError } from './errors.js';
import { itemsOfTransaction, type LedgerItem } from '../ledger/records/transitions.js';
import { judgeAtBlockTimes } from '../ledger/records/blockTimes.js';
import type { ProgramRegistry } from '../ledger/programs.js';
import { outsideRange, savedFiles, savedJson, type SavedBlock, type Source } from './sources.js';

const FILE = /^(\d{1,16})\.json$/;

/** Writes `b` to `dir` (atomically: a file is there whole or not at all). */
export function saveBlock(dir: string, b: SavedBlock): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${b.height}.json`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ height: b.height, ...(b.timestamp !== undefined ? { timestamp: b.timestamp } : {}), transactions: b.transactions })}\n`);
  renameSync(`${file}.tmp`, file);
}

function readBlock(dir: string, f: string): SavedBlock {
  const b = savedJson('--blocks-dir', join(dir, f)) as Partial<SavedBlock> | null;
  if (typeof b !== 'object' || b === null || b.height !== Number(FILE.exec(f)![1]) || !Array.isArray(b.transactions) || (b.timestamp !== undefined && !Number.isSafeInteger(b.timestamp))) {
    throw cliError('CLI_BAD_INPUT', `--blocks-dir: ${join(dir, f)} is not a saved block of height ${FILE.exec(f)![1]} ({ height, timestamp?, transactions: [...] })`);
  }
  return b as SavedBlock;
}

/**
 * The saved blocks of `dir` as a reverify source; cursor = next file index (by height).
 * `judgeAtBlock`: each update is judged at its block's saved timestamp (a block saved without one
 * cannot be, and says so).
 */
export function blocksDirSource(dir: string, programs: readonly string[], registry: ProgramRegistry | undefined, judgeAtBlock: boolean, batchFiles = 50): Source {
  const files = savedFiles('--blocks-dir', dir, (f) => FILE.test(f)).sort((x, y) => Number(FILE.exec(x)![1]) - Number(FILE.exec(y)![1]));
  return {
    identity: { kind: 'blocks-dir', dir, programs, files: files.length },
    unit: 'saved blocks',
    initialCursor: 0,
    cursorProblem: (cursor) => outsideRange(cursor, 0, files.length),
    remaining: (cursor) => Math.max(0, files.length - cursor),
    async *batches(cursor, stop) {
      for (let s = cursor; s < files.length; s += batchFiles) {
        const e = Math.min(files.length, s + batchFiles);
        const items: LedgerItem[] = [];
        const times = new Map<number, number>();
        for (const f of files.slice(s, e)) {
          const b = readBlock(dir, f);
          if (b.timestamp !== undefined) times.set(b.height, b.timestamp);
          for (const tx of b.transactions) items.push(...itemsOfTransaction(tx, programs, b.height, registry));
        }
        if (judgeAtBlock) {
          await judgeAtBlockTimes(items, times, (h) =>
            Promise.reject(cliError('CLI_BAD_INPUT', `--blocks-dir: block ${h} was saved without its timestamp, so it cannot be judged at its time (save it again with --archive, or from the /blocks route)`)),
          );
        }
        yield { cursor: e, items, units: e - s };
        if (stop()) return;
      }
    },
  };
}
