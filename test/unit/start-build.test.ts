/**
 * `npm start` builds only what changed: its prestart step is an incremental `tsc -b`, which does
 * nothing (no output written) when dist/ is current and rebuilds when a source is newer than the
 * build. Checked by running the real prestart command of package.json against this worktree.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = process.cwd();
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The prestart command's arguments after `tsc`. */
function prestartArgs(): string[] {
  const m = /^tsc (-b \S+)$/.exec(pkg.scripts.prestart ?? '');
  if (!m) throw new Error(`prestart is not an incremental tsc -b build: ${JSON.stringify(pkg.scripts.prestart)}`);
  return m[1]!.split(' ');
}

async function prestart(...extra: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [TSC, ...prestartArgs(), ...extra], { cwd: ROOT, env: { ...process.env, LANG: 'C' } });
  return stdout;
}

describe('npm start skips the build when dist/ is current', () => {
  // A fresh checkout builds here once (a hang guard, not a speed bound).
  beforeAll(async () => {
    await prestart();
  }, 600_000);

  it('start, prestart and build use the same incremental build', () => {
    expect(pkg.scripts.start).toBe('node dist/src/main.js');
    expect(pkg.scripts.build).toBe(pkg.scripts.prestart);
  });

  it('nothing changed: the project is up to date and no output is written', async () => {
    const main = resolve(ROOT, 'dist/src/main.js');
    const before = statSync(main).mtimeMs;
    const out = await prestart('--verbose');
    expect(out).toMatch(/Project '.*tsconfig\.build\.json' is up to date/);
    expect(statSync(main).mtimeMs).toBe(before);
  });

  it('a source newer than the build: the project is rebuilt', async () => {
    const src = resolve(ROOT, 'src/server/info.ts');
    const { atime, mtime } = statSync(src);
    utimesSync(src, atime, new Date(Date.now() + 3_600_000));
    try {
      const out = await prestart('--verbose', '--dry');
      expect(out).toMatch(/is out of date because output .* is older than input 'src\/server\/info\.ts'/);
      expect(out).toMatch(/A non-dry build would build project/);
    } finally {
      utimesSync(src, atime, mtime);
    }
    expect(await prestart('--verbose', '--dry')).toMatch(/is up to date/);
  });
});
