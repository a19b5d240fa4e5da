import { VerifierError } from '../errors.js';
import type { StartupCode } from './errors.js';

/** Measurements printed by get-enclave-id.sh. */
export interface EnclaveMeasurements {
  /** typeA (SGX) enclave unique ID, 32 bytes. */
  uniqueId: Uint8Array;
  /** typeB (Nitro) PCR0, PCR1, PCR2, 48 bytes each. */
  pcrs: Uint8Array[];
}

export const UNIQUE_ID_MARKER = 'Oracle SGX unique ID:';
export const PCR_MARKER = 'Oracle Nitro PCR:';

const UNIQUE_ID_BYTES = 32;
const PCR_BYTES = 48;
const PCR_COUNT = 3;
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
 * Extracts the measurements from get-enclave-id.sh's standard output: the line after the exact
 * line `Oracle SGX unique ID:` (64 hex characters) and the three lines after `Oracle Nitro PCR:`
 * (96 hex characters each). Hex is accepted in any case; all-zero values are rejected.
 */
export function parseEnclaveIdOutput(stdout: string): EnclaveMeasurements {
  const lines = stdout.split(/\r?\n/);
  const u = markerIndex(lines, UNIQUE_ID_MARKER);
  const p = markerIndex(lines, PCR_MARKER);
  const uniqueId = hexValue(lines, u + 1, 'the SGX unique ID', UNIQUE_ID_BYTES);
  const pcrs: Uint8Array[] = [];
  for (let i = 0; i < PCR_COUNT; i++) {
    pcrs.push(hexValue(lines, p + 1 + i, `Nitro PCR${i}`, PCR_BYTES));
  }
  return { uniqueId, pcrs };
}
