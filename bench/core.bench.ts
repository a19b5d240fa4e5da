/**
 * The whole verification core per report, in process (what one pool task does), on the minted
 * 50/50 typeA/typeB mix of the HTTP load run: the per-report CPU cost the HTTP throughput is
 * compared with (bench/corePath.ts, bench/mix.ts).   Usage: npx tsx bench/core.bench.ts
 */
import { coreInputOf, createCorePath } from './corePath.js';
import { mintMix } from './mix.js';

const r = await (await createCorePath(coreInputOf(mintMix(32)))).measure();
console.log(`${'core, typeA report (warm caches)'.padEnd(40)} mean ${r.typeAMs.toFixed(3)} ms  (${r.samples[0]} samples)`);
console.log(`${'core, typeB report (warm caches)'.padEnd(40)} mean ${r.typeBMs.toFixed(3)} ms  (${r.samples[1]} samples)`);
const mix = r.mixMs;
console.log(`50/50 mix: ${mix.toFixed(3)} ms per report → 2 workers: 2 ÷ ${mix.toFixed(3)} ms = ${(2000 / mix).toFixed(0)} reports/s; 85 % = ${((0.85 * 2000) / mix).toFixed(0)}/s`);
