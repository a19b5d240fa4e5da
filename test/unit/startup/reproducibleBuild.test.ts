import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReproducibleBuild } from '../../../src/startup/reproducibleBuild.js';
import { readVectorJson } from '../../support/paths.js';
import { rejection } from '../../support/errors.js';
import { until } from '../../support/wait.js';
import { hex } from '../../../src/bytes.js';

const targets = readVectorJson<{ uniqueIdTargetHex: string; pcrValuesTargetHex: string[] }>('production-targets.json');

const FIXTURES = 'test/fixtures/enclave-id';

/** True while `pid` exists and is not a zombie (an orphan's reaping is up to PID 1). */
async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const run = (script: string, extra: Partial<Parameters<typeof runReproducibleBuild>[0]> = {}) =>
  runReproducibleBuild({ script: `${FIXTURES}/${script}`, cwd: process.cwd(), timeoutMs: 10_000, ...extra });

describe('runReproducibleBuild', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'startup-repro-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('reads the real output format and normalises mixed-case hex', async () => {
    const m = await run('valid.sh');
    expect(m.typeA).toBeInstanceOf(Uint8Array);
    expect(m.typeA.length).toBe(32);
    expect(hex(m.typeA)).toBe(targets.uniqueIdTargetHex);
    expect(m.typeB.map((p) => p.length)).toEqual([48, 48, 48]);
    expect(m.typeB.map(hex)).toEqual(targets.pcrValuesTargetHex);
  });

  it('accepts an absolute script path', async () => {
    const m = await run('valid.sh', { script: join(process.cwd(), FIXTURES, 'valid.sh'), cwd: tmp });
    expect(hex(m.typeA)).toBe(targets.uniqueIdTargetHex);
  });

  it('passes the environment through (ORACLE_REVISION decides the output)', async () => {
    for (const rev of ['v1.2.3', 'deadbeef']) {
      const m = await run('env-revision.sh', { env: { ...process.env, ORACLE_REVISION: rev } });
      expect(hex(m.typeA)).toBe(createHash('sha256').update(rev).digest('hex'));
      expect(m.typeB.map(hex)).toEqual(
        [0, 1, 2].map((i) => createHash('sha384').update(`${rev}/pcr${i}`).digest('hex')),
      );
    }
  });

  it('runs in cwd and inherits process.env by default', async () => {
    const before = process.env.ORACLE_REVISION;
    process.env.ORACLE_REVISION = 'from-process-env';
    try {
      const m = await runReproducibleBuild({ script: join(process.cwd(), FIXTURES, 'env-revision.sh'), cwd: tmp, timeoutMs: 10_000 });
      expect(hex(m.typeA)).toBe(createHash('sha256').update('from-process-env').digest('hex'));
    } finally {
      if (before === undefined) delete process.env.ORACLE_REVISION;
      else process.env.ORACLE_REVISION = before;
    }
  });

  /** [what, script, options (given the temp dir), code, message fragments] */
  type Extra = Partial<Parameters<typeof runReproducibleBuild>[0]>;
  const FAILURES: [string, string, (tmp: string) => Extra, string, string[]][] = [
    ['the script does not exist', 'no-such-script.sh', () => ({}), 'REPRO_BUILD_SCRIPT_NOT_FOUND', ['no-such-script.sh']],
    ['the script path is a directory', '', () => ({ script: FIXTURES }), 'REPRO_BUILD_SCRIPT_NOT_FOUND', []],
    ['the working directory does not exist', 'valid.sh', (t) => ({ script: join(process.cwd(), FIXTURES, 'valid.sh'), cwd: join(t, 'missing') }), 'REPRO_BUILD_SPAWN_FAILED', ['does not exist']],
    ['a non-zero exit, with the exit code and the last lines of stderr', 'exit-nonzero.sh', () => ({}), 'REPRO_BUILD_FAILED', ['exited with code 3', "Failed to obtain Oracle's unique ID", 'permission denied']],
    ['a missing marker, naming it', 'missing-pcr-marker.sh', () => ({}), 'REPRO_BUILD_MISSING_MARKER', ['"Oracle Nitro PCR:"']],
    ['a marker printed twice', 'duplicate-marker.sh', () => ({}), 'REPRO_BUILD_DUPLICATE_MARKER', ['2 times']],
    ['a short value', 'short-value.sh', () => ({}), 'REPRO_BUILD_BAD_VALUE', ['must be 64 hex characters', 'got 62']],
    ['output that ends before the third PCR', 'missing-pcr-line.sh', () => ({}), 'REPRO_BUILD_BAD_VALUE', ['PCR2']],
    ['a non-hex value, naming the character', 'non-hex.sh', () => ({}), 'REPRO_BUILD_BAD_VALUE', ['PCR1', '"g"']],
    ['an all-zero value', 'all-zero.sh', () => ({}), 'REPRO_BUILD_BAD_VALUE', ['PCR2', 'all zeros']],
    ['output over the bound (the script is stopped)', 'huge-output.sh', () => ({ maxStdoutBytes: 256 * 1024, killGraceMs: 300 }), 'REPRO_BUILD_OUTPUT_TOO_LARGE', ['262144 bytes']],
  ];

  it.each(FAILURES)('fails on %s', async (_what, script, extra, code, fragments) => {
    const e = await rejection(run(script, extra(tmp)));
    expect(e.code).toBe(code);
    for (const f of fragments) expect(e.message).toContain(f);
  });

  it('stops a hanging script after the timeout, killing its whole process group', async () => {
    const pidFile = join(tmp, 'child.pid');
    const e = await rejection(
      run('sleep.sh', { timeoutMs: 400, killGraceMs: 300, env: { ...process.env, CHILD_PID_FILE: pidFile } }),
    );
    expect(e.code).toBe('REPRO_BUILD_TIMEOUT');
    expect(e.message).toContain('400 ms');
    expect(e.message).toContain('waiting for the build');
    const childPid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(childPid).toBeGreaterThan(0);
    // the script's background child (sleep 30) is gone long before its 30 s: the group was killed
    await until('the killed process group to disappear', async () => !(await isRunning(childPid)), 20_000);
  });
});
