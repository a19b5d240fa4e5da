/**
 * Chunked struct codec benchmark: `npx tsx bench/struct.bench.ts`
 * Parses a real 10-chunk report text (reference style as sent by clients, and pretty-printed as a
 * ledger node prints it), formats it back, and compares with a naive regex + BigInt baseline.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Bench } from 'tinybench';
import { REPORT_CHUNKS, USER_DATA_CHUNKS, formatChunkedStruct, parseChunkedStruct } from '../src/aleo/struct.js';

const examples = JSON.parse(
  readFileSync(path.resolve(process.cwd(), '../shared/vectors/aleo/e2e/readme-decodeReport-examples.json'), 'utf8'),
) as { sgx: { request: { userData: string; report: string } } };
const reportText = examples.sgx.request.report;
const userDataText = examples.sgx.request.userData;
const reportBytes = parseChunkedStruct(reportText, REPORT_CHUNKS);
const reportPretty = formatChunkedStruct(reportBytes, REPORT_CHUNKS, 'pretty');

/** What a straightforward implementation does: one regex for the values, BigInt per value. */
function naiveParse(text: string, chunks: number): Uint8Array {
  const out = new Uint8Array(chunks * 512);
  const dv = new DataView(out.buffer);
  const values = [...text.matchAll(/f\d+:\s*(\d+)u128/g)];
  if (values.length !== chunks * 32) throw new Error(`expected ${chunks * 32} values, got ${values.length}`);
  values.forEach((m, i) => {
    const v = BigInt(m[1] as string);
    if (v >> 128n !== 0n) throw new Error('out of range');
    dv.setBigUint64(i * 16, v & 0xffffffffffffffffn, true);
    dv.setBigUint64(i * 16 + 8, v >> 64n, true);
  });
  return out;
}

function naiveFormat(bytes: Uint8Array, chunks: number): string {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const cs: string[] = [];
  for (let c = 0; c < chunks; c++) {
    const fs: string[] = [];
    for (let f = 0; f < 32; f++) {
      const o = (c * 32 + f) * 16;
      fs.push(`    f${f}: ${((dv.getBigUint64(o + 8, true) << 64n) | dv.getBigUint64(o, true)).toString()}u128`);
    }
    cs.push(`  c${c}: {${fs.join(',')}  }`);
  }
  return `{${cs.join(',')}}`;
}

if (naiveFormat(reportBytes, REPORT_CHUNKS) !== reportText) throw new Error('naive formatter disagrees');
if (Buffer.compare(naiveParse(reportText, REPORT_CHUNKS), reportBytes) !== 0) throw new Error('naive parser disagrees');

let sink = 0;
const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add(`parse report, reference style (${reportText.length} chars)`, () => {
    sink ^= parseChunkedStruct(reportText, REPORT_CHUNKS)[100] as number;
  })
  .add(`parse report, pretty style (${reportPretty.length} chars)`, () => {
    sink ^= parseChunkedStruct(reportPretty, REPORT_CHUNKS)[100] as number;
  })
  .add(`parse userData, reference style (${userDataText.length} chars)`, () => {
    sink ^= parseChunkedStruct(userDataText, USER_DATA_CHUNKS)[100] as number;
  })
  .add('format report, reference style', () => {
    sink ^= formatChunkedStruct(reportBytes, REPORT_CHUNKS).length;
  })
  .add('format report, pretty style', () => {
    sink ^= formatChunkedStruct(reportBytes, REPORT_CHUNKS, 'pretty').length;
  })
  .add('baseline: regex + BigInt parse of report', () => {
    sink ^= naiveParse(reportText, REPORT_CHUNKS)[100] as number;
  })
  .add('baseline: BigInt toString format of report', () => {
    sink ^= naiveFormat(reportBytes, REPORT_CHUNKS).length;
  });

await bench.run();
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state === 'completed') {
    const mean = r.latency.mean * 1000;
    const ops = r.throughput.mean;
    console.log(
      `${t.name.padEnd(52)} ${ops.toFixed(0).padStart(8)} ops/s  mean ${mean.toFixed(1).padStart(7)} µs  ` +
        `median ${(r.latency.p50 * 1000).toFixed(1)} µs  p99 ${(r.latency.p99 * 1000).toFixed(1)} µs`,
    );
  } else {
    console.log(`${t.name.padEnd(52)} ${r.state}`);
  }
}
if (sink === -1) console.log(sink);
