/**
 * typeB verification cost on oracle-nitro-report (run: npx tsx bench/typeb.bench.ts).
 * Compares cold (no chain cache) and warm (validated chain cached) verification with the floor,
 * one P-384 ECDSA verify in node:crypto, and with the peer @0xsequence/tee-verifier.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { verify as cryptoVerify } from 'node:crypto';
import { Bench } from 'tinybench';
import { SignedAttestation } from '@0xsequence/tee-verifier';
import { parsePemChain } from '../src/attestation/x509/certificate.js';
import { ChainCache } from '../src/attestation/x509/chainCache.js';
import { parseTypeB, verifyTypeBReport } from '../src/attestation/typeB/index.js';
import { sigStructure } from '../src/attestation/typeB/cose.js';
import { parseCertificate } from '../src/attestation/x509/certificate.js';
import { createTypeBPki } from '../test/support/typeb-pki.js';

const dir = path.resolve(process.cwd(), '../shared/vectors/nitro');
const report = new Uint8Array(Buffer.from(readFileSync(path.join(dir, 'oracle-nitro-report.hex'), 'utf8').trim(), 'hex'));
const root = parsePemChain(readFileSync(path.join(dir, 'aws-nitro-enclaves-root-g1.pem'), 'utf8'))[0]!;
const parsed = parseTypeB(report);
const leafKey = parseCertificate(parsed.document.certificate).publicKey;
const tbs = sigStructure(parsed.protectedBytes, parsed.payloadBytes);
const b64 = Buffer.from(report).toString('base64');
const docTime = new Date(parsed.document.timestamp);
const cache = new ChainCache();
// Distinct documents (fresh leaf each, as the NSM does) under one CA bundle: the CA part is cached.
const pki = createTypeBPki({ now: Date.UTC(2025, 0, 1) });
const pkiRoot = parseCertificate(pki.rootDer);
const fresh = Array.from({ length: 400 }, () => pki.mintDocument());
const freshCache = new ChainCache({ max: 1 }); // every document evicts the previous leaf's entry; the CA entry stays
verifyTypeBReport(pki.mintDocument(), { root: pkiRoot, allowDebug: false, chainCache: freshCache });
let next = 0;

// sanity: every contender accepts the document before it is timed
verifyTypeBReport(report, { root, allowDebug: false });
verifyTypeBReport(report, { root, allowDebug: false, chainCache: cache });
if (!cryptoVerify('sha384', tbs, { key: leafKey, dsaEncoding: 'ieee-p1363' }, parsed.signature)) throw new Error('floor verify failed');
async function peer(): Promise<void> {
  const att = SignedAttestation.fromDocument(b64);
  if (!(await att.verifyRootOfTrust(docTime))) throw new Error('peer: chain rejected');
  if (!(await att.verifySignature())) throw new Error('peer: signature rejected');
  // the peer trusts cabundle[0]; pinning needs a fingerprint comparison
  if ((await att.rootCertFingerprint().catch(() => root.fingerprint256)) !== root.fingerprint256) throw new Error('peer: root');
}
await peer();

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add('floor: one P-384 verify (node:crypto)', () => {
    cryptoVerify('sha384', tbs, { key: leafKey, dsaEncoding: 'ieee-p1363' }, parsed.signature);
  })
  .add('parseTypeB only (COSE + document)', () => {
    parseTypeB(report);
  })
  .add('verify cold (no chain cache)', () => {
    verifyTypeBReport(report, { root, allowDebug: false });
  })
  .add('verify warm (chain cached)', () => {
    verifyTypeBReport(report, { root, allowDebug: false, chainCache: cache });
  })
  .add('verify new document, CA bundle cached (test PKI)', () => {
    verifyTypeBReport(fresh[next++ % fresh.length]!, { root: pkiRoot, allowDebug: false, chainCache: freshCache });
  })
  .add('peer @0xsequence/tee-verifier (chain at doc time + signature)', peer);
await bench.run();

const mean = (name: string): number => (bench.tasks.find((t) => t.name === name)!.result as unknown as { latency: { mean: number } }).latency.mean * 1000;
const floor = mean('floor: one P-384 verify (node:crypto)');
console.log('task'.padEnd(64), 'mean µs'.padStart(10), 'vs floor'.padStart(10));
for (const t of bench.tasks) {
  const m = mean(t.name);
  console.log(t.name.padEnd(64), m.toFixed(1).padStart(10), `${(m / floor).toFixed(2)}×`.padStart(10));
}
console.log(`warm/floor = ${(mean('verify warm (chain cached)') / floor).toFixed(3)} (target ≤ 1.2)`);
console.log(`peer/warm = ${(mean('peer @0xsequence/tee-verifier (chain at doc time + signature)') / mean('verify warm (chain cached)')).toFixed(1)}×, peer/cold = ${(mean('peer @0xsequence/tee-verifier (chain at doc time + signature)') / mean('verify cold (no chain cache)')).toFixed(1)}×`);
console.log(`chain cache: hits ${cache.hits}, misses ${cache.misses}; fresh-leaf cache: hits ${freshCache.hits}, CA hits ${freshCache.caHits}, misses ${freshCache.misses}`);
