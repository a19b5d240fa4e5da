/**
 * Every fuzz target (targets.ts) for a fixed number of runs from its seed corpus, with a fixed
 * seed: deterministic, no time limit (issue 48). A finding fails the test with its input in hex,
 * to be kept as a regression input under test/fuzz/regressions/. The long runs are
 * `npx tsx bench/fuzz.ts` (BENCHMARKS.md, "Fuzzing").
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fuzz } from './engine.js';
// The engine first (it turns V8's block coverage on), then the targets' modules.
const { TARGETS } = await import('./targets.js');
const { plantedParser } = await import('./planted.js');

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const REGRESSIONS = resolve(process.cwd(), 'test/fuzz/regressions');

describe('fuzz targets (coverage-guided, fixed runs)', () => {
  for (const t of TARGETS) {
    it(`${t.name}: ${RUNS} runs from its seeds; only declared errors, and agreement with the reference where there is one`, async () => {
      const r = await fuzz(t, { runs: RUNS, seed: 48 });
      expect(r.findings.map((f) => `${f.error} on ${Buffer.from(f.input).toString('hex').slice(0, 400)}`)).toEqual([]);
      // The feedback works: the seeds and the mutations reached code of src/.
      expect(r.blocks).toBeGreaterThan(10);
      expect(r.corpus).toBeGreaterThan(t.seeds().length > 0 ? 1 : 0);
    });
  }

  it('the engine finds a bug planted three conditions deep, led there by coverage (a fuzzer that finds nothing proves nothing)', async () => {
    const planted = { name: 'planted', seeds: () => [new Uint8Array(9).fill(0x41)], run: plantedParser };
    const r = await fuzz(planted, { runs: 50_000, seed: 48, srcMark: '/test/fuzz/planted', stopAtFinding: true });
    expect(r.findings.length).toBeGreaterThan(0);
    const f = r.findings[0]!;
    expect(f.error).toBe('TypeError: planted: read past the end');
    expect([f.input[5], f.input[6], f.input[7]]).toEqual([0xff, 0x00, 0x80]);
    // Each condition met was kept as a step towards the next one.
    expect(r.corpus).toBeGreaterThanOrEqual(4);
  });

  it('every kept regression input still passes its target', () => {
    if (!existsSync(REGRESSIONS)) return;
    for (const dir of readdirSync(REGRESSIONS)) {
      const t = TARGETS.find((x) => x.name === dir);
      expect(t, `test/fuzz/regressions/${dir} names no target`).toBeDefined();
      for (const f of readdirSync(join(REGRESSIONS, dir))) t!.run(new Uint8Array(readFileSync(join(REGRESSIONS, dir, f))));
    }
  });
});
