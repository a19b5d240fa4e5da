/**
 * The HTTP thread's own pieces of one POST /decodeReport, priced one by one with tinybench on the
 * minted typeA/typeB mix of bench/http-load.ts (the ladder there measures the layers under load;
 * this says what is inside them): the body's JSON parse as Fastify does it (secure-json-parse)
 * against plain JSON.parse, the text → bytes struct parse, the typeA collateral prefetch from a
 * warm PCCS source, the outcome's trip back from a worker (structured clone: serialised in the
 * worker, deserialised on the HTTP thread) and the answer's body as JSON.
 * Usage: npx tsx bench/frontend.bench.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import sjson from 'secure-json-parse';
import { Bench } from 'tinybench';
import { configuredTargets, resolveConfig } from '../src/config/load.js';
import { composeVerifier } from '../src/compose.js';
import { createCollateralSource } from '../src/collateral/source.js';
import { CollateralDesk, CollateralLine } from '../src/pool/collateralPort.js';
import { decodeReportBody } from '../src/verify/decodeReportBody.js';
import { parseReportTexts } from '../src/verify/verifyReport.js';
import { cutTypeAReport, parseQuote } from '../src/attestation/typeA/quote.js';
import type { VerifyOutcome } from '../src/verify/types.js';
import { bundleFromCollateral, startPccsServer } from '../test/support/pccs-server.js';
import { reportText } from '../test/support/ledger-reports.js';
import { mintMix, mixConfig } from './mix.js';

const mix = mintMix(2);
const pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
const config = resolveConfig({ port: 0, workers: 0, ...mixConfig(mix, mkdtempSync(join(tmpdir(), 'frontend-bench-')), pccs.url) }, process.cwd());
const composed = composeVerifier(config, { targets: configuredTargets(config)! });

const kinds = ['typeA', 'typeB'] as const;
const body = (k: number) => JSON.stringify({ userData: mix.updates[k]!.userData.text, report: reportText(k === 0 ? mix.updates[k]!.typeA : mix.updates[k]!.typeB) });
const bodies = kinds.map((_, k) => Buffer.from(body(k)));
const texts = bodies.map((b) => JSON.parse(b.toString('utf8')) as { userData: string; report: string });
const outcomes: VerifyOutcome[] = [];
for (const t of texts) {
  const out = await composed.service.decodeReport(t.userData, t.report);
  if (!out.reportValid) throw new Error(`the minted mix does not verify: ${out.error?.message}`);
  outcomes.push(out);
}
const clones = outcomes.map((o) => serialize(o));
// the main thread's answer to a worker's collateral request, as the pool runs it, on a source whose
// caches are warm (both ends in this thread: the round trip through the pool's channels)
const { source } = createCollateralSource({ root: composed.roots.typeA, now: () => mix.a.time, pccsUrl: pccs.url });
const desk = new CollateralDesk(source!, 'frontend-bench-collateral');
const line = new CollateralLine('frontend-bench-collateral', () => {});
const typeABytes = parseReportTexts(texts[0]!.userData, texts[0]!.report);
if ('error' in typeABytes) throw new Error(typeABytes.error.message);
const subject = { pckCertPems: parseQuote(cutTypeAReport(typeABytes.report)).pckCertPems };
const collateralRoundTrip = async () => {
  const ticket = desk.open(() => {});
  try {
    await line.request(ticket, subject);
  } finally {
    desk.close(ticket);
  }
};
await collateralRoundTrip();

const bench = new Bench({ time: 1000, warmupTime: 200 });
kinds.forEach((kind, k) => {
  const raw = bodies[k]!;
  const t = texts[k]!;
  bench
    .add(`${kind}: body JSON, secure-json-parse (as Fastify)`, () => sjson.parse(raw.toString('utf8')))
    .add(`${kind}: body JSON, JSON.parse`, () => JSON.parse(raw.toString('utf8')))
    .add(`${kind}: struct parse (parseReportTexts)`, () => parseReportTexts(t.userData, t.report))
    .add(`${kind}: outcome clone, worker side (serialize)`, () => serialize(outcomes[k]!))
    .add(`${kind}: outcome clone, HTTP thread (deserialize)`, () => deserialize(clones[k]!))
    .add(`${kind}: answer body (decodeReportBody + JSON.stringify)`, () => JSON.stringify(decodeReportBody(outcomes[k]!)));
});
bench.add('typeA: collateral request answered over the pool\'s channels, warm caches', collateralRoundTrip);
await bench.run();
desk.shutdown();
await composed.close();
await pccs.close();

// medians: the host is shared, and a median is less moved by other processes than a mean
console.log(`node ${process.version}; bodies ${bodies.map((b) => b.length).join(' / ')} B, answers ${outcomes.map((o) => JSON.stringify(decodeReportBody(o)).length).join(' / ')} B (typeA / typeB)`);
console.log('piece'.padEnd(60), 'µs p50'.padStart(8), 'µs mean'.padStart(8));
for (const t of bench.tasks) {
  const r = t.result as unknown as { latency: { p50: number; mean: number } } | undefined;
  if (!r?.latency) throw new Error(`${t.name}: no result`);
  console.log(t.name.padEnd(60), (r.latency.p50 * 1000).toFixed(1).padStart(8), (r.latency.mean * 1000).toFixed(1).padStart(8));
}
