/**
 * `npm start` builds only what changed: its prestart step is an incremental `tsc -b`, which does
 * nothing (no output written) when dist/ is current and rebuilds when a source is newer than the
 * build. Checked by running the real prestart command of package.json against this worktree.
 * With dist/ built, every CLI line of the READMEs runs as written: `npx oracle-verifier …` (the
 * package's own command; not on the PATH after `npm install`), each command's `--help` through
 * npx, and every option a line uses is one its command knows. In this file, so that one build
 * serves both (two `tsc -b` at once on one dist/ would race).
 */
import { execFile } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = process.cwd();
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The prestart command: an incremental `tsc -b`, then the script that makes the commands executable. */
function prestartParts(): { tscArgs: string[]; binModes: string } {
  const m = /^tsc (-b \S+) && node (scripts\/bin-modes\.mjs)$/.exec(pkg.scripts.prestart ?? '');
  if (!m) throw new Error(`prestart is not an incremental tsc -b build followed by bin-modes: ${JSON.stringify(pkg.scripts.prestart)}`);
  return { tscArgs: m[1]!.split(' '), binModes: m[2]! };
}

async function prestart(...extra: string[]): Promise<string> {
  const { tscArgs, binModes } = prestartParts();
  const { stdout } = await run(process.execPath, [TSC, ...tscArgs, ...extra], { cwd: ROOT, env: { ...process.env, LANG: 'C' } });
  if (!extra.includes('--dry')) await run(process.execPath, [binModes], { cwd: ROOT });
  return stdout;
}

// A fresh checkout builds here once (a hang guard, not a speed bound).
beforeAll(async () => {
  await prestart();
}, 600_000);

describe('npm start skips the build when dist/ is current', () => {
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

/** The shell command lines of the ```sh blocks of a markdown file, continuation lines joined. */
function shellLines(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const joined = m[1]!.replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) if (line.trim() !== '') out.push(line.replace(/\s+#.*$/, '').trim());
  }
  return out;
}

const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(resolve(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...readdirSync(resolve(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('README.md')).map((f) => `examples/${f}`)];
const cliLines = DOCS.flatMap((doc) => shellLines(readFileSync(resolve(ROOT, doc), 'utf8')).filter((l) => /(^|\s)oracle-verifier(\s|$)/.test(l) && !/^kubectl|^docker/.test(l)).map((line) => ({ doc, line })));

/** The words naming the command (`collateral fetch`, `merge`) after `npx oracle-verifier`. */
const commandWords = (line: string) => {
  const words = line.replace(/^npx oracle-verifier\s*/, '').split(/\s+/);
  const i = words.findIndex((w) => !/^[a-z]+$/.test(w));
  return i < 0 ? words : words.slice(0, i);
};

async function sh(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('sh', ['-c', line], { cwd: ROOT, env: { ...process.env, npm_config_update_notifier: 'false' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('the CLI lines of README.md and docs/, as written', () => {
  it('every CLI line runs the command through npx (oracle-verifier is not on the PATH after npm install), after the build', () => {
    expect(cliLines.length).toBeGreaterThanOrEqual(8);
    for (const { doc, line } of cliLines) expect(line, `${doc}: ${line}`).toMatch(/^npx oracle-verifier(\s|$)/);
    // Each block that runs it from a clone builds first (README.md and docs/).
    for (const m of DOCS.filter((d) => !d.startsWith('examples/')).map((d) => readFileSync(resolve(ROOT, d), 'utf8')).join('\n').matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
      const block = m[1]!;
      if (block.includes('npx oracle-verifier')) expect(block.indexOf('npm run build'), block).toBeGreaterThanOrEqual(0);
      if (block.includes('npx oracle-verifier')) expect(block.indexOf('npm run build')).toBeLessThan(block.indexOf('npx oracle-verifier'));
    }
  });

  it('`npx oracle-verifier --help` prints the usage and exits 0', async () => {
    const r = await sh('npx oracle-verifier --help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('oracle-verifier <command> [options]')).toBe(true);
  });

  it('a rebuilt dist/ (tsc writes files without the execute bit; npx linked the command before) still runs through npx', async () => {
    expect((await sh('npx oracle-verifier --help')).code).toBe(0); // npx has linked the command
    const bins = Object.values((pkg as { bin?: Record<string, string> }).bin ?? {}).map((f) => resolve(ROOT, f));
    expect(bins.length).toBe(2);
    for (const bin of bins) chmodSync(bin, 0o644); // as tsc leaves a file it creates
    await prestart();
    for (const bin of bins) expect(statSync(bin).mode & 0o111, bin).toBe(0o111);
    const r = await sh('npx oracle-verifier --help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('oracle-verifier <command> [options]')).toBe(true);
  });

  it('each line\'s command answers `--help` through npx, and knows every option the line uses', async () => {
    const commands = new Map<string, string[]>();
    for (const { line } of cliLines) {
      const words = commandWords(line);
      if (words.length === 0) continue;
      const key = words.join(' ');
      commands.set(key, [...(commands.get(key) ?? []), line]);
    }
    expect([...commands.keys()].sort()).toEqual(['block check', 'collateral export', 'collateral fetch', 'collateral import', 'completeness', 'merge', 'reverify', 'verify']);
    for (const [cmd, lines] of commands) {
      const r = await sh(`npx oracle-verifier ${cmd} --help`);
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stdout.startsWith(`usage: oracle-verifier ${cmd.split(' ')[0]}`), r.stdout).toBe(true);
      for (const line of lines) for (const opt of line.match(/(?<=\s|\[)--[a-z-]+/g) ?? []) expect(r.stdout, `${line}: ${opt}`).toContain(opt);
    }
  });
});
