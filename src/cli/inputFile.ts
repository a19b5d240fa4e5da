/**
 * Why a file named on the command line could not be read, said as a person would ("no such file:
 * PATH") rather than as the system's bare code; every command's input files are read through it.
 */
import { readFileSync } from 'node:fs';
import { cliError } from './errors.js';

const PLAIN: Record<string, string> = {
  ENOENT: 'no such file',
  ENOTDIR: 'no such file (a part of the path is not a directory)',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a directory, not a file',
};

/** `no such file: PATH` (and the like) for a failed read of `file`; the system's code in parentheses when it has no plain name. */
export function fileProblem(file: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const plain = code === undefined ? undefined : PLAIN[code];
  if (plain !== undefined) return `${plain}: ${file}`;
  return `cannot read ${file} (${code ?? (e as Error)?.message ?? String(e)})`;
}

/** The text of an input file; a CLI_BAD_INPUT error that begins with `what` (the option) when it cannot be read. */
export function readInputText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `${what}: ${fileProblem(file, e)}`, e);
  }
}
