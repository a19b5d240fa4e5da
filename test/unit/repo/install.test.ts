/**
 * A clean install stays clean: every package the lock file installs here runs on this Node (npm
 * prints no EBADENGINE), every runtime package also runs on the oldest Node our `engines` admits,
 * what is installed is what the lock names, and the lock lists every platform's optional packages
 * (so npm writes the same lock on any machine and `git status` stays clean after an install).
 * npm 11's `npm ci` accepts the lock (every dependency a lock entry names has its own entry:
 * npm 11 refuses a lock that lacks one, also an optional platform package; npm 10 did not), and
 * every package with an install script is in package.json's `allowScripts` (npm 11 warns about
 * the others).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** semver is installed with fastify; only these two functions are used. */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string, opts?: { includePrerelease?: boolean }): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  engines?: { node?: string };
  link?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: Record<string, string>;
  allowScripts?: Record<string, boolean | string>;
};
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
const entries = Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.link);

/** Whether npm installs this entry on this machine (optional per-platform packages are skipped elsewhere). */
function forThisPlatform(e: LockEntry): boolean {
  const fits = (list: string[] | undefined, v: string) => !list || list.includes(v) || (list.every((x) => x.startsWith('!')) && !list.includes(`!${v}`));
  return fits(e.os, process.platform) && fits(e.cpu, process.arch);
}

/** The package name of a lock path (`node_modules/a/node_modules/@b/c` → `@b/c`). */
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Whether an installed entry needs `name` (an optional package only others skipped for their platform need is left out too). */
function neededByInstalled(name: string): boolean {
  return entries.some(([path, e]) => installed(path) !== undefined && (e.dependencies?.[name] !== undefined || e.optionalDependencies?.[name] !== undefined));
}

/** Installed package.json of a lock entry; undefined when npm left it out (platform or libc). */
function installed(path: string): { version: string; engines?: { node?: string } } | undefined {
  const file = join(ROOT, path, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

describe('clean install', () => {
  it('every installed package admits the running Node in engines.node (no EBADENGINE)', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const [path, e] of entries) {
      const p = installed(path);
      if (!p) {
        expect(e.optional && (!forThisPlatform(e) || e.libc !== undefined || !neededByInstalled(nameOf(path))), `${path} is in the lock but not installed`).toBe(true);
        continue;
      }
      const range = p.engines?.node;
      checked++;
      if (range !== undefined && !semver.satisfies(process.version, range, { includePrerelease: true })) bad.push(`${path}@${p.version} wants node ${range}`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });

  it('every runtime package admits the oldest Node of our engines range', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const bad = entries
      .filter(([, e]) => !e.dev && e.engines?.node !== undefined && !semver.satisfies(oldest, e.engines.node))
      .map(([path, e]) => `${path}@${e.version} wants node ${e.engines!.node}`);
    expect(bad).toEqual([]);
  });

  it('what is installed is what the lock file names', () => {
    const differ = entries
      .map(([path, e]) => [path, e.version, installed(path)?.version] as const)
      .filter(([, want, got]) => got !== undefined && got !== want)
      .map(([path, want, got]) => `${path}: lock ${want}, installed ${got}`);
    expect(differ).toEqual([]);
  });

  it('the lock lists the optional packages of every platform, not only this one', () => {
    expect(lock.lockfileVersion).toBe(3);
    for (const name of ['@rollup/rollup-darwin-arm64', '@rollup/rollup-linux-x64-gnu', '@rollup/rollup-linux-arm64-musl', '@rollup/rollup-win32-x64-msvc', '@esbuild/darwin-arm64', '@esbuild/linux-x64', '@esbuild/win32-x64']) {
      const e = lock.packages[`node_modules/${name}`];
      expect(e, name).toBeDefined();
      expect(e!.optional, name).toBe(true);
      expect(e!.os?.length, name).toBe(1);
    }
    const foreign = entries.filter(([, e]) => e.optional && !forThisPlatform(e));
    expect(foreign.length).toBeGreaterThan(20);
  });
});

/** The lock entry Node's resolution finds for `name` required from the package at `from`, or undefined. */
function resolveInLock(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

describe('npm 10 and npm 11', () => {
  it('every dependency a lock entry names, optional platform packages included, has an entry of its own', () => {
    const missing: string[] = [];
    for (const [path, e] of Object.entries(lock.packages)) {
      if (e.link) continue;
      for (const name of [...Object.keys(e.dependencies ?? {}), ...Object.keys(e.optionalDependencies ?? {})]) {
        if (!resolveInLock(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
    // cbor-x's native decoder: every platform's prebuilt package (cbor-extract 2.2.3 names
    // packages 2.2.3 that were never published; the override pins 2.2.2, whose packages exist).
    const extract = lock.packages[resolveInLock('node_modules/cbor-x', 'cbor-extract')!]!;
    expect(Object.keys(extract.optionalDependencies ?? {}).length).toBeGreaterThanOrEqual(6);
    for (const [name, version] of Object.entries(extract.optionalDependencies ?? {})) expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
  });

  it('every package with an install script is in allowScripts (npm 11 warns about the others), and nothing else is', () => {
    const withScripts = [...new Set(entries.filter(([, e]) => e.hasInstallScript).map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)))].sort();
    expect(withScripts).toEqual(expect.arrayContaining(['better-sqlite3', 'cbor-extract', 'esbuild']));
    // Name-only entries: the lock carries no `resolved` URLs, against which npm would check a pinned `name@version`.
    expect(pkg.allowScripts).toEqual(Object.fromEntries(withScripts.map((n) => [n, true])));
  });

  it('`npm ci` accepts package.json with the lock (the npm on PATH; dry run, offline, no scripts, fresh cache and user config)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) copyFileSync(resolve(ROOT, f), join(dir, f));
      writeFileSync(join(dir, 'empty.npmrc'), '');
      const env = { ...process.env, npm_config_cache: join(dir, 'cache'), npm_config_userconfig: join(dir, 'empty.npmrc'), npm_config_update_notifier: 'false' };
      const r = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8' });
      expect(r.error).toBeUndefined();
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/Missing: |Invalid: |EUSAGE/);
      expect(r.status, r.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
