/**
 * Unit tests mirror src/ (issue 52): a unit test of src/a/b.ts sits under test/unit/a/ (b.test.ts,
 * or b-<aspect>.test.ts when b has several); a folder of test/unit is a folder of src/, or names a
 * file of src/ (test/unit/errorCodes/ tests src/errorCodes.ts). test/unit/repo/ holds the checks of
 * the repository itself (docs, deploy files, the layers, dead code).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

function dirs(root: string): string[] {
  return readdirSync(root).flatMap((f) => {
    const p = join(root, f);
    return statSync(p).isDirectory() ? [p, ...dirs(p)] : [];
  });
}

describe('test/unit mirrors src/', () => {
  it('has no test at its top level, and each of its folders is a folder or file of src/', () => {
    expect(readdirSync('test/unit').filter((f) => f.endsWith('.ts'))).toEqual([]);
    const strays = dirs('test/unit')
      .map((d) => relative('test/unit', d))
      .filter((d) => d !== 'repo' && !existsSync(join('src', d)) && !existsSync(join('src', `${d}.ts`)));
    expect(strays).toEqual([]);
  });
});
