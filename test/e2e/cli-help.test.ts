/**
 * The real `oracle-verifier` process: help asked for (`--help`, `-h`, `help`, `help COMMAND`,
 * `COMMAND --help`) prints usage on stdout and exits 0; usage errors (no command, unknown command
 * or option) print on stderr and exit 2.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TSX } from '../support/process.js';
import { VERIFY_USAGE } from '../../src/cli/verify.js';
import { REVERIFY_USAGE } from '../../src/cli/reverify.js';
import { COLLATERAL_USAGE } from '../../src/cli/collateral.js';
import { MERGE_USAGE } from '../../src/cli/merge.js';
import { USAGE } from '../../src/cli/main.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], { env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

describe.concurrent('oracle-verifier help', () => {
  it.each([['--help'], ['-h'], ['help']])('%s prints the full usage on stdout and exits 0', async (arg) => {
    const r = await cli([arg]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(USAGE);
    expect(r.stderr).toBe('');
  });

  it.each([
    [['verify', '--help'], VERIFY_USAGE],
    [['reverify', '--help'], REVERIFY_USAGE],
    [['collateral', '--help'], COLLATERAL_USAGE],
    [['collateral', 'fetch', '--help'], COLLATERAL_USAGE],
    [['merge', '-h'], MERGE_USAGE],
    [['help', 'verify'], VERIFY_USAGE],
    [['help', 'merge'], MERGE_USAGE],
  ])('%j prints the command usage on stdout and exits 0', async (args, usage) => {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${usage}\n`);
    expect(r.stderr).toBe('');
  });
});

describe.concurrent('oracle-verifier usage errors', () => {
  it.each([
    [[], /no command given/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['help', 'frobnicate'], /no help on "frobnicate"/],
    [['verify', '--bogus'], /CLI_USAGE: unknown option --bogus/],
    [['merge'], /CLI_USAGE: usage: oracle-verifier merge/],
  ])('%j: message on stderr, nothing on stdout, exit 2', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});
