/**
 * Every code the verifier throws belongs to the closed set of src/errorCodes.ts: the sources are
 * scanned for VerifierError constructions and error helpers with literal codes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODES_BY_DOMAIN } from '../../src/errorCodes.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('error codes', () => {
  it('are unique SCREAMING_SNAKE identifiers', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const c of ERROR_CODES) expect(c).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/);
    expect(Object.keys(ERROR_CODES_BY_DOMAIN).length).toBeGreaterThan(10);
  });

  // The notarizer client library (src/client) is a separate API with its own ClientError codes.
  it('every literal code used by the verifier (src/ except the client library) is declared', () => {
    const declared = new Set<string>(ERROR_CODES);
    const used = new Set<string>();
    for (const f of files('src').filter((f) => !f.startsWith(join('src', 'client')))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:VerifierError(?:<[^>]*>)?\(\s*|[a-zA-Z]+Error\(\s*|fail\(\s*|code:\s*)'([A-Z][A-Z0-9_]+)'/g)) used.add(m[1]!);
    }
    const unknown = [...used].filter((c) => !declared.has(c));
    expect(unknown).toEqual([]);
    expect(used.size).toBeGreaterThan(50);
  });
});
