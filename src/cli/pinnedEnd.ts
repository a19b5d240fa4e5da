/**
 * `reverify --to-file FILE`: one end height for every shard of an audit and every resume of them.
 * The first process to get here reads the node's tip and publishes it in FILE atomically (a temp
 * file hard-linked to FILE: the link fails when another process was first, and that one's height
 * is used); the others, and every later run, read FILE. FILE holds the height alone ("12345\n"), so
 * that a later step (the completeness check) can read it too.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { cliError } from './errors.js';

function readEnd(file: string): number {
  const text = readFileSync(file, 'utf8').trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw cliError('CLI_BAD_INPUT', `--to-file ${file}: expected a block height, found ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}

export async function pinnedEnd(file: string, tip: () => Promise<number>): Promise<number> {
  try {
    return readEnd(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const end = await tip();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${end}\n`);
  try {
    linkSync(tmp, file);
    return end;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw cliError('CLI_BAD_INPUT', `--to-file ${file}: ${(e as Error).message}`);
    return readEnd(file); // another shard was first
  } finally {
    unlinkSync(tmp);
  }
}
