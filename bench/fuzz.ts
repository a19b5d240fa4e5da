/**
 * Long fuzz runs (issue 48): each target of test/fuzz/targets.ts for `--runs` executions from its
 * seed corpus (test/fuzz/corpus/), coverage-guided by V8's block coverage (test/fuzz/engine.ts).
 * Prints, per target: executions, executions/s, blocks of src/ reached, (block, count bucket)
 * features, the corpus grown, the heap after the run, and each finding with its input in hex.
 *
 *   npx tsx bench/fuzz.ts [--runs N] [--seed S] [--target NAME]
 */
import { parseArgs } from 'node:util';
import { fuzz } from '../test/fuzz/engine.js';
// The engine first (it turns V8's block coverage on), then the targets' modules.
const { TARGETS } = await import('../test/fuzz/targets.js');

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' }, target: { type: 'string' } } });
const rows: string[] = [];
for (const t of TARGETS.filter((x) => values.target === undefined || x.name === values.target)) {
  const t0 = performance.now();
  const r = await fuzz(t, { runs: Number(values.runs), seed: Number(values.seed) });
  const s = (performance.now() - t0) / 1000;
  const heap = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  rows.push(`| ${t.name} | ${r.executions} | ${Math.round(r.executions / s)} | ${r.blocks} | ${r.features} | ${t.seeds().length} → ${r.corpus} | ${heap} | ${r.findings.length} |`);
  for (const f of r.findings.slice(0, 5)) console.log(`finding ${t.name}: ${f.error}\n  input ${Buffer.from(f.input).toString('hex').slice(0, 600)}`);
  console.log(rows.at(-1));
}
console.log('\n| target | executions | executions/s | src blocks reached | features | corpus (seeds → kept) | heap MiB after | findings |\n|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
