/**
 * The config.json target (src/config/load.ts loadConfig): an input is a config file's bytes,
 * written to a file of its own directory and loaded as the server loads it. Whatever the bytes,
 * the loader returns a config or throws its own one-line error (CONFIG_*), never a RangeError of a
 * deep nesting, a SyntaxError or a TypeError of an unexpected shape.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isVerifierError } from '../../src/errors.js';
import { loadConfig } from '../../src/config/load.js';

let file: string | undefined;

export function configJson(input: Uint8Array): void {
  file ??= join(mkdtempSync(join(tmpdir(), 'fuzz-config-')), 'config.json');
  writeFileSync(file, input);
  try {
    loadConfig(file);
  } catch (e) {
    if (isVerifierError(e) && e.code.startsWith('CONFIG_')) return;
    throw new Error(`loadConfig threw an undeclared ${e instanceof Error ? `${e.name}: ${e.message.slice(0, 200)}` : String(e)}`);
  }
}
