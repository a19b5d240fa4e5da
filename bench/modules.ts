/**
 * The service's modules as the bench peers load them: from the compiled build (dist/src, as the
 * service runs, the default) or, with BENCH_MODULES=src, from the TypeScript sources through tsx
 * (as the tests run the peers, without depending on a current build).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const FROM_SOURCE = process.env.BENCH_MODULES === 'src';
if (process.env.BENCH_MODULES !== undefined && !['src', 'dist'].includes(process.env.BENCH_MODULES)) {
  throw new Error(`BENCH_MODULES must be src or dist, got ${JSON.stringify(process.env.BENCH_MODULES)}`);
}
const ROOT = resolve(import.meta.dirname, '..');

/** Imports `src/<path>.ts`, or its compiled `dist/src/<path>.js`; `path` has no extension. */
export function serviceModule<T>(path: string): Promise<T> {
  const file = FROM_SOURCE ? resolve(ROOT, 'src', `${path}.ts`) : resolve(ROOT, 'dist/src', `${path}.js`);
  return import(pathToFileURL(file).href) as Promise<T>;
}
