/**
 * The import graph keeps its layers (ARCHITECTURE.md): the verification core imports no HTTP,
 * worker, storage or CLI code, and nothing outside the CLI imports the CLI (the error-code registry
 * only gathers its code list).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of the sources, as [importer, imported] paths under src/. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g;
const edges = files('src').flatMap((f) =>
  [...readFileSync(f, 'utf8').matchAll(IMPORT)].map((m) => [relative('src', f), relative('src', normalize(join(dirname(f), m[1]!.replace(/\.js$/, '.ts'))))] as const),
);
const under = (p: string, dirs: readonly string[]) => dirs.some((d) => p.startsWith(`${d}/`));

describe('layers', () => {
  it('sees the imports (the scan works)', () => {
    expect(edges).toContainEqual(['cli/reverify.ts', 'ledger-records/transitions.ts']);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('the verification core imports no HTTP, worker, storage or CLI code', () => {
    const core = ['verify', 'attestation', 'encoding', 'ledger', 'hash'];
    const outer = ['server', 'pool', 'store', 'cli', 'ledger-watch', 'ledger-node', 'ledger-records', 'startup', 'collateral', 'client'];
    expect(edges.filter(([from, to]) => under(from, core) && under(to, outer))).toEqual([]);
  });

  it('nothing outside the CLI imports it, but the error-code registry', () => {
    expect(edges.filter(([from, to]) => !under(from, ['cli']) && under(to, ['cli']) && from !== 'errorCodes.ts')).toEqual([]);
  });
});
