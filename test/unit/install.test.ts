/**
 * A clean install stays clean: every package the lock file installs here runs on this Node (npm
 * prints no EBADENGINE), every runtime package also runs on the oldest Node our `engines` admits,
 * what is installed is what the lock names, and the lock lists every platform's optional packages
 * (so npm writes the same lock on any machine and `git status` stays clean after an install).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
}

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; overrides?: Record<string, string> };
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
const entries = Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.link);

/** Whether npm installs this entry on this machine (optional per-platform packages are skipped elsewhere). */
function forThisPlatform(e: LockEntry): boolean {
  const fits = (list: string[] | undefined, v: string) => !list || list.includes(v) || (list.every((x) => x.startsWith('!')) && !list.includes(`!${v}`));
  return fits(e.os, process.platform) && fits(e.cpu, process.arch);
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
        expect(e.optional && (!forThisPlatform(e) || e.libc !== undefined), `${path} is in the lock but not installed`).toBe(true);
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
