/**
 * The hand-written parsers against the libraries the tests use as oracles (run: npx tsx
 * bench/parsers.bench.ts), on real inputs: the Intel SGX Root CA and the Nitro leaf certificate,
 * the 44-entry Intel PCK CRL, the oracle Nitro document. docs/parsers.md records the numbers.
 * Ours does more per certificate: it also builds the node:crypto KeyObject and the SHA-256
 * fingerprint; the library only reads the ASN.1.
 */
import { readFileSync } from 'node:fs';
import 'reflect-metadata'; // @peculiar/x509 needs it (tsyringe)
import { X509Certificate } from '@peculiar/x509';
import { Bench } from 'tinybench';
import { parseCertificate } from '../src/attestation/x509/certificate.js';
import { parseCrl } from '../src/attestation/x509/crl.js';
import { parseTypeB } from '../src/attestation/typeB/verify.js';
import { vectorPath, readVectorHex } from '../test/support/paths.js';
import { libCert, libCertFields, libCrl, libCrlFields, libNitroFields, ourCertFields, ourCrlFields, ourNitroFields, realCrls } from '../test/support/reference-parsers.js';
import { isDeepStrictEqual } from 'node:util';

const intelRoot = new Uint8Array(readFileSync(vectorPath('sgx/intel-root/IntelSGXRootCA.der')));
const doc = readVectorHex('nitro/oracle-nitro-report.hex');
const nitroLeaf = parseTypeB(doc).document.certificate;
const crl44 = realCrls().find((c) => libCrlFields(c.value).revoked.length === 44)!.value;

// sanity: both sides read the same fields before anything is timed
const same = (a: unknown, b: unknown, what: string) => {
  if (!isDeepStrictEqual(a, b)) throw new Error(`${what}: ours and the library differ`);
};
same(ourCertFields(parseCertificate(intelRoot)), libCertFields(intelRoot), 'root');
same(ourCertFields(parseCertificate(nitroLeaf)), libCertFields(nitroLeaf), 'leaf');
same(ourCrlFields(parseCrl(crl44)), libCrlFields(crl44), 'crl');
same(ourNitroFields(parseTypeB(doc)), libNitroFields(doc), 'nitro');

const bench = new Bench({ time: 1000, warmupTime: 200 });
const pairs: [string, () => unknown, () => unknown][] = [
  ['certificate: Intel SGX Root CA', () => parseCertificate(intelRoot), () => libCert(intelRoot)],
  ['certificate: Nitro leaf', () => parseCertificate(nitroLeaf), () => libCert(nitroLeaf)],
  ['CRL: Intel PCK CRL, 44 entries', () => parseCrl(crl44), () => libCrl(crl44)],
  ['Nitro document (COSE + payload)', () => parseTypeB(doc), () => libNitroFields(doc)],
];
for (const [name, ours, lib] of pairs) bench.add(`${name} | ours`, ours).add(`${name} | library`, lib);
bench.add('certificate: Intel SGX Root CA | @peculiar/x509 X509Certificate', () => new X509Certificate(intelRoot));
await bench.run();

// medians: the host is shared, and a median is less moved by other processes than a mean
const mean = (name: string): number => (bench.tasks.find((t) => t.name === name)!.result as unknown as { latency: { p50: number } }).latency.p50 * 1000;
console.log(`node ${process.version}`);
console.log('input'.padEnd(40), 'ours µs p50'.padStart(12), 'library µs p50'.padStart(16), 'library/ours'.padStart(14));
for (const [name] of pairs) {
  const o = mean(`${name} | ours`);
  const l = mean(`${name} | library`);
  console.log(name.padEnd(40), o.toFixed(1).padStart(12), l.toFixed(1).padStart(16), `${(l / o).toFixed(1)}×`.padStart(14));
}
console.log(`@peculiar/x509 X509Certificate on the Intel root: ${mean('certificate: Intel SGX Root CA | @peculiar/x509 X509Certificate').toFixed(1)} µs`);
