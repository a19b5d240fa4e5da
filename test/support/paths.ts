import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** ../shared/vectors beside the repository (CI has shared/ there). */
export const VECTORS = resolve(process.cwd(), '../shared/vectors');
export const REPO = process.cwd();

export function vectorPath(...parts: string[]): string {
  return resolve(VECTORS, ...parts);
}

export function readVectorJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(vectorPath(...parts), 'utf8')) as T;
}

export function readVectorHex(...parts: string[]): Uint8Array {
  return Uint8Array.from(Buffer.from(readFileSync(vectorPath(...parts), 'utf8').trim(), 'hex'));
}
