/**
 * typeA (SGX DCAP quote v3) benchmark: `npx tsx bench/typea.bench.ts`
 * Real oracle report + Intel PCS collateral of 2026-09-22, verified at 2026-09-23.
 *  - cold: parse quote + verify collateral + verify quote, no caches (9+ ECDSA verifies);
 *  - warm: collateral verified once, PCK chain in a ChainCache, attestation key cached;
 *  - floor: what cannot be avoided per quote = P-256 key import + 2 P-256 verifies + SHA-256.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { Bench } from 'tinybench';
import * as dcapQvl from '@phala/dcap-qvl';
import { collateralFromDcapQvlJson } from '../src/attestation/typeA/collateral.js';
import { cutTypeAReport, parseQuote } from '../src/attestation/typeA/quote.js';
import { verifyCollateral, verifyQuote } from '../src/attestation/typeA/verify.js';
import { parseCertificate } from '../src/attestation/x509/certificate.js';
import { ChainCache } from '../src/attestation/x509/chainCache.js';

const SGX = path.resolve(process.cwd(), '../shared/vectors/sgx');
const read = (p: string): Buffer => readFileSync(path.join(SGX, p));
const root = parseCertificate(new Uint8Array(read('intel-root/IntelSGXRootCA.der')));
const report = new Uint8Array(5120);
report.set(Buffer.from(read('oracle-sgx-report.hex').toString('utf8').trim(), 'hex'));
const collateral = collateralFromDcapQvlJson(read('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json').toString('utf8'));
const time = 1790121600_000;

const vc = verifyCollateral(collateral, { root, time });
const chainCache = new ChainCache();
const keyCache = new LRUCache<string, KeyObject>({ max: 64 });
const q0 = parseQuote(cutTypeAReport(report));
const pckKey = parseCertificate(q0.pckCertDers[0]).publicKey;
const spkiPrefix = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d03010703420004', 'hex');
let sink = 0;
// Peer: Phala's pure-JS dcap-qvl on the same raw quote with the same collateral (its own JSON shape).
const dcapQuote = cutTypeAReport(report);
const dcapCollateral = JSON.parse(read('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json').toString('utf8'));
const dcapResult = dcapQvl.verify(dcapQuote, dcapCollateral, time / 1000);
if (dcapResult.status !== 'OutOfDate') throw new Error(`dcap-qvl gave ${dcapResult.status}`);

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add('cold: cut + parse + verifyCollateral + verifyQuote', () => {
    const q = parseQuote(cutTypeAReport(report));
    sink ^= verifyQuote(q, verifyCollateral(collateral, { root, time }), { root, time }).tcbStatusCode;
  })
  .add('verifyCollateral only', () => {
    sink ^= verifyCollateral(collateral, { root, time }).tcbInfo.version;
  })
  .add('quote, no caches (collateral verified)', () => {
    sink ^= verifyQuote(parseQuote(cutTypeAReport(report)), vc, { root, time }).tcbStatusCode;
  })
  .add('warm: cut + parse + verifyQuote, chain cache only', () => {
    sink ^= verifyQuote(parseQuote(cutTypeAReport(report)), vc, { root, time, chainCache }).tcbStatusCode;
  })
  .add('warm: cut + parse + verifyQuote, chain + key caches', () => {
    sink ^= verifyQuote(parseQuote(cutTypeAReport(report)), vc, { root, time, chainCache, keyCache }).tcbStatusCode;
  })
  .add('peer: @phala/dcap-qvl verify (same quote and collateral)', () => {
    sink ^= dcapQvl.verify(dcapQuote, dcapCollateral, time / 1000).status.length;
  })
  .add('parseQuote (cut included)', () => {
    sink ^= parseQuote(cutTypeAReport(report)).isvReport.isvSvn;
  })
  .add('floor: key import + 2 P-256 verifies + SHA-256', () => {
    const att = createPublicKey({ key: Buffer.concat([spkiPrefix, q0.attestationKey]), format: 'der', type: 'spki' });
    const ok1 = verify('sha256', q0.qeReport.raw, { key: pckKey, dsaEncoding: 'ieee-p1363' }, q0.qeReportSignature);
    const h = createHash('sha256').update(q0.attestationKey).update(q0.qeAuthData).digest();
    const ok2 = verify('sha256', q0.signedBytes, { key: att, dsaEncoding: 'ieee-p1363' }, q0.isvSignature);
    sink ^= (ok1 && ok2 ? 1 : 0) ^ h[0]!;
  })
  .add('floor without key import: 2 P-256 verifies + SHA-256', () => {
    const ok1 = verify('sha256', q0.qeReport.raw, { key: pckKey, dsaEncoding: 'ieee-p1363' }, q0.qeReportSignature);
    const h = createHash('sha256').update(q0.attestationKey).update(q0.qeAuthData).digest();
    const ok2 = verify('sha256', q0.signedBytes, { key: pckKey, dsaEncoding: 'ieee-p1363' }, q0.isvSignature);
    sink ^= (ok1 || ok2 ? 1 : 0) ^ h[0]!;
  });

await bench.run();
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state === 'completed') {
    console.log(`${t.name.padEnd(56)} mean ${r.latency.mean.toFixed(3)} ms  (p99 ${r.latency.p99.toFixed(3)} ms, ${r.latency.samplesCount} samples)`);
  } else {
    console.log(`${t.name.padEnd(56)} ${r.state}`);
  }
}
console.log(`chain cache hits ${chainCache.hits}, misses ${chainCache.misses}`);
if (sink === -1) console.log(sink);
