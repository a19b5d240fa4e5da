import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { VerifierError } from '../errors.js';
import type { TargetValues } from '../verify/kinds/index.js';
import { parseEnclaveIdOutput } from './enclaveIdOutput.js';
import type { StartupCode } from './errors.js';
import { runScript } from './runScript.js';

export interface ReproducibleBuildOptions {
  /** Path of get-enclave-id.sh (or a compatible script), relative to `cwd` or absolute. */
  script: string;
  /** Working directory of the script (TEMP_WD defaults to a directory below it). */
  cwd: string;
  /** Environment of the script; TEMP_WD, CA_CERT_DATE, ORACLE_REVISION… pass through. Default process.env. */
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Default 16 MiB. */
  maxStdoutBytes?: number;
  /** Default 5000 ms. */
  killGraceMs?: number;
}

const DEFAULT_MAX_STDOUT = 16 * 1024 * 1024;
const STDERR_TAIL_BYTES = 64 * 1024;
const STDERR_LINES_SHOWN = 20;
const DEFAULT_KILL_GRACE_MS = 5000;

function fail(code: StartupCode, message: string, cause?: unknown): never {
  throw new VerifierError<StartupCode>(code, message, cause === undefined ? undefined : { cause });
}

function lastLines(text: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return ' (standard error was empty)';
  return `; last lines of standard error:\n${lines.slice(-STDERR_LINES_SHOWN).join('\n')}`;
}

/**
 * Runs the reproducible-build script (`/bin/sh <script>` in `cwd`, own process group) and returns
 * every kind's target it prints (the SGX unique ID, Nitro PCR0–2).
 */
export async function runReproducibleBuild(opts: ReproducibleBuildOptions): Promise<TargetValues> {
  const script = resolve(opts.cwd, opts.script);
  const cwdIsDir = await stat(opts.cwd).then((st) => st.isDirectory(), () => false);
  if (!cwdIsDir) {
    fail('REPRO_BUILD_SPAWN_FAILED', `reproducible build: working directory ${opts.cwd} does not exist or is not a directory`);
  }
  try {
    const st = await stat(script);
    if (!st.isFile()) fail('REPRO_BUILD_SCRIPT_NOT_FOUND', `reproducible build: ${script} is not a regular file`);
  } catch (e) {
    if (e instanceof VerifierError) throw e;
    fail('REPRO_BUILD_SCRIPT_NOT_FOUND', `reproducible build: script ${script} not found (${(e as Error).message})`, e);
  }

  const outcome = await runScript({
    script,
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    timeoutMs: opts.timeoutMs,
    maxStdoutBytes: opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT,
    stderrTailBytes: STDERR_TAIL_BYTES,
    killGraceMs: opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
  });

  switch (outcome.kind) {
    case 'spawnError':
      return fail('REPRO_BUILD_SPAWN_FAILED', `reproducible build: cannot run /bin/sh ${script} in ${opts.cwd}: ${outcome.error.message}`, outcome.error);
    case 'timeout':
      return fail('REPRO_BUILD_TIMEOUT', `reproducible build: ${script} did not finish within ${opts.timeoutMs} ms and was stopped${lastLines(outcome.stderrTail)}`);
    case 'stdoutTooLarge':
      return fail(
        'REPRO_BUILD_OUTPUT_TOO_LARGE',
        `reproducible build: ${script} wrote more than ${opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT} bytes to standard output and was stopped`,
      );
    case 'exited': {
      if (outcome.code !== 0) {
        const how = outcome.code === null ? `was killed by ${outcome.signal ?? 'a signal'}` : `exited with code ${outcome.code}`;
        return fail('REPRO_BUILD_FAILED', `reproducible build: ${script} ${how}${lastLines(outcome.stderrTail)}`);
      }
      return parseEnclaveIdOutput(outcome.stdout);
    }
  }
}
