import { VerifierError } from '../errors.js';
import { KINDS, type TargetValues } from '../verify/kinds/index.js';
import type { StartupCode } from './errors.js';

const SHOWN_CHARS = 120;

function fail(code: StartupCode, message: string): never {
  throw new VerifierError<StartupCode>(code, message);
}

function shown(s: string): string {
  return JSON.stringify(s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);
}

/** Index of the single line equal (after trimming) to `marker`. */
function markerIndex(lines: string[], marker: string): number {
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === marker) found.push(i);
  });
  if (found.length === 0) {
    fail('REPRO_BUILD_MISSING_MARKER', `reproducible build: the script's standard output has no line ${JSON.stringify(marker)}`);
  }
  if (found.length > 1) {
    fail(
      'REPRO_BUILD_DUPLICATE_MARKER',
      `reproducible build: the script's standard output has the line ${JSON.stringify(marker)} ${found.length} times (lines ${found.map((i) => i + 1).join(', ')}); expected exactly once`,
    );
  }
  return found[0]!;
}

function hexValue(lines: string[], lineIndex: number, what: string, bytes: number): Uint8Array {
  const raw = lines[lineIndex];
  if (raw === undefined) {
    fail('REPRO_BUILD_BAD_VALUE', `reproducible build: ${what} is missing (standard output ends after line ${lines.length})`);
  }
  const value = raw.trim();
  const chars = bytes * 2;
  if (value.length !== chars) {
    fail(
      'REPRO_BUILD_BAD_VALUE',
      `reproducible build: ${what} (line ${lineIndex + 1}) must be ${chars} hex characters (${bytes} bytes), got ${value.length} characters: ${shown(value)}`,
    );
  }
  const bad = value.search(/[^0-9a-fA-F]/);
  if (bad !== -1) {
    fail(
      'REPRO_BUILD_BAD_VALUE',
      `reproducible build: ${what} (line ${lineIndex + 1}) is not hex: character ${bad + 1} is ${JSON.stringify(value[bad])} in ${shown(value)}`,
    );
  }
  const out = Uint8Array.from(Buffer.from(value, 'hex'));
  if (out.every((b) => b === 0)) {
    fail('REPRO_BUILD_BAD_VALUE', `reproducible build: ${what} (line ${lineIndex + 1}) is all zeros`);
  }
  return out;
}

/**
 * Extracts every kind's target from get-enclave-id.sh's standard output: for each kind (its
 * `target.buildOutput`), the lines after the exact line `marker` (`Oracle SGX unique ID:`, then 64
 * hex characters; `Oracle Nitro PCR:`, then three lines of 96 hex characters). Hex is accepted in
 * any case; all-zero values are rejected. Every marker is looked for before any value is read.
 */
export function parseEnclaveIdOutput(stdout: string): TargetValues {
  const lines = stdout.split(/\r?\n/);
  const at = KINDS.map((k) => markerIndex(lines, k.target.buildOutput.marker));
  const out: Record<string, unknown> = {};
  KINDS.forEach((k, n) => {
    const o = k.target.buildOutput;
    out[k.id] = o.value(o.items.map((what, i) => hexValue(lines, at[n]! + 1 + i, what, o.bytes)));
  });
  return out as TargetValues;
}
