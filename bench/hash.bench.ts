/**
 * Binding-hash benchmark: `npx tsx bench/hash.bench.ts`
 * hashReportData on an 8-chunk userData (4096 B) and a 10-chunk report (5120 B), plus the
 * parts (struct → fields; Poseidon8 kernel over 205 fields) and the reference permutation.
 */
import { Bench } from 'tinybench';
import { ALEO_POSEIDON8_DOMAIN } from '../src/hash/domain.js';
import { hashReportData } from '../src/hash/index.js';
import { poseidon8Kernel } from '../src/hash/kernel.js';
import { poseidon8 } from '../src/hash/poseidon8-reference.js';
import { structFieldElements } from '../src/hash/structFields.js';
import { pseudoRandomBytes } from '../test/support/random.js';

const user8 = pseudoRandomBytes(8 * 512, 1);
const report10 = pseudoRandomBytes(10 * 512, 2);
const fields8 = structFieldElements(user8);
let sink = 0;

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add('hashReportData 8 chunks (4096 B, 205 fields)', () => {
    sink ^= hashReportData(user8)[0] as number;
  })
  .add('hashReportData 10 chunks (5120 B, 256 fields)', () => {
    sink ^= hashReportData(report10)[0] as number;
  })
  .add('structFieldElements 8 chunks', () => {
    sink ^= structFieldElements(user8).length;
  })
  .add('poseidon8 kernel, 205 fields', () => {
    sink ^= Number(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, fields8) & 1n);
  })
  .add('poseidon8 reference, 205 fields', () => {
    sink ^= Number(poseidon8(ALEO_POSEIDON8_DOMAIN, fields8) & 1n);
  });

await bench.run();
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state === 'completed') {
    console.log(`${t.name.padEnd(48)} mean ${r.latency.mean.toFixed(3)} ms  (p99 ${r.latency.p99.toFixed(3)} ms, ${r.latency.samplesCount} samples)`);
  } else {
    console.log(`${t.name.padEnd(48)} ${r.state}`);
  }
}
if (sink === -1) console.log(sink);
