/**
 * The import graph of src/ keeps its layers (docs/architecture.md "Layers"): every file, the files at
 * the src root included, sits on one layer; an import (type-only, re-export, side-effect and
 * dynamic imports included) never runs from a lower layer to a higher one, and no files import
 * each other in a circle. Nothing outside the CLI imports the CLI, and nothing in src imports a file
 * outside src. Report kinds are named only in their own folders (src/verify/kinds/<kind>/) and in
 * src/attestation/: everything else reads the registry.
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

/** Every relative module specifier of a source text: `import … from`, `export … from`, `import '…'`, `import('…')`. */
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'|(?:^|\n)\s*import\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;

export function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => relative('src', normalize(join(dirname(file), (m[1] ?? m[2] ?? m[3])!.replace(/\.js$/, '.ts')))));
}

const sources = files('src');
const edges = sources.flatMap((f) => importsOf(f, readFileSync(f, 'utf8')).map((to) => [relative('src', f), to] as const));

/**
 * The layers, lowest first. A path belongs to the most specific entry that names it (a file, else
 * its deepest listed folder).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errorCodes.ts'],
  ['errors.ts', 'bytes.ts', 'abort.ts', 'publicUrl.ts', 'credentials.ts', 'serviceFetch.ts', 'upstreamBody.ts', 'typeNames.ts', 'jsonSchemaType.ts', 'packageRoot.ts', 'version.ts', 'rateLimit.ts', 'requestBudget.ts', 'smallFile.ts'],
  ['aleo', 'hash'],
  ['encoding', 'attestation'],
  ['verify'],
  ['config', 'collateral', 'observability', 'ear', 'ledger/programs.ts', 'ledger/programsConfig.ts'],
  ['pool', 'ledger/node', 'ledger/records', 'ledger/store', 'startup', 'client'],
  ['ledger/watch', 'ledger/inclusion'],
  ['compose.ts'],
  ['server', 'cli'],
  ['bootstrap.ts'],
  ['main.ts', 'index.ts'],
];

export function layerOf(path: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((entries, layer) => {
    for (const e of entries) {
      const hit = path === e || path.startsWith(`${e}/`);
      if (hit && (!best || e.length > best.length)) best = { layer, length: e.length };
    }
  });
  return best?.layer;
}

/** The strongly connected components of more than one file (Tarjan). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('layers', () => {
  it('sees every kind of import (the scan works)', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { b } from '../b.js';",
      "export { c } from './c/c.js';",
      "export type { D } from './d.js';",
      "import './side.js';",
      'const e = await import(\'./e.js\');',
      "import x from 'fastify';",
    ].join('\n');
    expect(importsOf('src/x/y.ts', text)).toEqual(['x/a.ts', 'b.ts', 'x/c/c.ts', 'x/d.ts', 'x/side.ts', 'x/e.ts']);
    expect(edges).toContainEqual(['errors.ts', 'errorCodes.ts']);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('every source file sits on a layer', () => {
    expect(sources.map((f) => relative('src', f)).filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('the ground floor imports nothing', () => {
    expect(edges.filter(([from]) => layerOf(from) === 0)).toEqual([]);
  });

  it('no import runs from a lower layer to a higher one', () => {
    expect(edges.filter(([from, to]) => layerOf(to)! > layerOf(from)!).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it('no files import each other in a circle', () => {
    const graph = new Map<string, string[]>();
    for (const [from, to] of edges) graph.set(from, [...(graph.get(from) ?? []), to]);
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(circles(graph)).toEqual([]);
  });

  it('nothing in src imports a file outside src (build-time code such as scripts/poseidon8-wasm stays out of the build)', () => {
    expect(edges.filter(([, to]) => to.startsWith('..')).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it('nothing outside the CLI imports it', () => {
    expect(edges.filter(([from, to]) => !from.startsWith('cli/') && to.startsWith('cli/'))).toEqual([]);
  });
});

/** The code of a source text without its comments (`//` after a blank or at a line start, and block comments). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/[^\n]*/g, '$1');
}

/** Where code names a report kind: the literals 'typeA'/'typeB' (any quotes), a member `.typeA`, or `typeATime`. */
const KIND_NAME = /(['"`])type[AB]\1|\.type[AB]\b|\btype[AB]Time\b/g;

export function kindNamesIn(text: string): string[] {
  return [...withoutComments(text).matchAll(KIND_NAME)].map((m) => m[0]);
}

/** Files that may name kinds: each kind's folder and the attestation formats. */
const NAMES_KINDS = (path: string): boolean => /^verify\/kinds\/[^/]+\//.test(path) || path.startsWith('attestation/');

describe('kind names', () => {
  it('sees a kind named in code, not in comments (the scan works)', () => {
    const text = [
      "const a = 'typeA'; // not 'typeB'",
      '/* roots.typeB */ const b = roots.typeB, c = { typeATime: 1 }, d = "typeA";',
      'const e = `typeB`; const f = typeAView; const g = \'https://x\'; // typeA',
    ].join('\n');
    expect(kindNamesIn(text)).toEqual(["'typeA'", '.typeB', 'typeATime', '"typeA"', '`typeB`']);
  });

  it('no file outside the kind folders and src/attestation/ names a kind: the rest reads the registry', () => {
    const named = sources
      .map((f) => relative('src', f))
      .filter((f) => !NAMES_KINDS(f))
      .flatMap((f) => kindNamesIn(readFileSync(join('src', f), 'utf8')).map((n) => `${f}: ${n}`));
    expect(named).toEqual([]);
  });
});
