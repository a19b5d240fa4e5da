/**
 * BENCHMARKS.md is the present (issue 52): at most 250 lines, each section's benchmark a file of
 * bench/, and the history left to git.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const text = readFileSync('BENCHMARKS.md', 'utf8');

describe('BENCHMARKS.md', () => {
  it('is at most 250 lines and says where the history is', () => {
    expect(text.split('\n').length).toBeLessThanOrEqual(250);
    expect(text).toContain('git log -p -- BENCHMARKS.md');
  });

  it("names in each section's heading a benchmark that exists", () => {
    const headings = text.split('\n').filter((l) => l.startsWith('## '));
    expect(headings.length).toBeGreaterThan(10);
    for (const h of headings) {
      const files = [...h.matchAll(/`(bench\/[^`]+)`/g)].map((m) => m[1]!);
      expect(files.length, h).toBeGreaterThan(0);
      for (const f of files) expect(existsSync(f), `${h}: ${f}`).toBe(true);
    }
  });
});
