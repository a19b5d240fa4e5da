import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePemChain } from '../../src/attestation/x509/certificate.js';
import { ChainCache } from '../../src/attestation/x509/chainCache.js';
import { cutTypeBReport, parseTypeB, verifyTypeB, verifyTypeBReport } from '../../src/attestation/typeB/index.js';
import { codeOf } from '../support/errors.js';

/** A fixed time after every real document's chain expired (the root CA is valid to 2049): no test reads the clock. */
const AFTER_EXPIRY = Date.UTC(2026, 0, 1);

const dir = path.resolve(process.cwd(), '../shared/vectors/nitro');
const hex = (name: string): Uint8Array => new Uint8Array(Buffer.from(readFileSync(path.join(dir, name), 'utf8').trim(), 'hex'));
const root = parsePemChain(readFileSync(path.join(dir, 'aws-nitro-enclaves-root-g1.pem'), 'utf8'))[0]!;

interface ManifestEntry {
  file: string;
  timestamp?: number;
  module_id?: string;
  pcr0?: string;
  pcr1?: string;
  pcr2?: string;
  user_data?: string | null;
  nonce?: string | null;
  public_key?: string | null;
  debugMode?: boolean;
  signature?: string;
  nitrite: string;
}
const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { vectors: ManifestEntry[] };
const entry = (file: string): ManifestEntry => manifest.vectors.find((v) => v.file === file)!;


const toHex = (b: Uint8Array | null | undefined): string | null => (b ? Buffer.from(b).toString('hex') : null);

describe('typeB real AWS Nitro documents', () => {
  it('pins the AWS Nitro Enclaves Root G1', () => {
    expect(root.fingerprint256).toBe('641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b');
    expect(root.subjectText).toBe('C=US, O=Amazon, OU=AWS, CN=aws.nitro-enclaves');
  });

  const real = manifest.vectors.filter((v) => v.debugMode !== undefined && v.signature !== undefined);
  it('covers the 11 real AWS documents and 4 signed variants', () => {
    expect(real.filter((v) => !/\.(neg-|malleated)/.test(v.file)).length).toBe(11);
    expect(real.length).toBe(15);
  });

  for (const v of real) {
    it(`${v.file}: ${v.nitrite.slice(0, 40)}`, () => {
      const parsed = parseTypeB(hex(v.file));
      const d = parsed.document;
      // parsed fields equal the manifest facts
      expect(d.moduleId).toBe(v.module_id);
      expect(d.timestamp).toBe(v.timestamp);
      expect(toHex(d.pcrs.get(0))).toBe(v.pcr0);
      expect(toHex(d.pcrs.get(1))).toBe(v.pcr1);
      expect(toHex(d.pcrs.get(2))).toBe(v.pcr2);
      expect(toHex(d.userData)).toBe(v.user_data ?? null);
      expect(toHex(d.nonce)).toBe(v.nonce ?? null);
      expect(toHex(d.publicKey)).toBe(v.public_key ?? null);
      expect(d.pcrs.size).toBe(16);
      expect(d.cabundle.length).toBe(4);

      const strict = codeOf(() => verifyTypeB(parsed, { root, allowDebug: false }));
      const lenient = codeOf(() => verifyTypeB(parsed, { root, allowDebug: true }));
      const sigOk = v.signature === 'valid';
      if (v.nitrite.startsWith('ACCEPT')) expect(strict).toBe('OK');
      else if (v.debugMode) expect(strict).toBe('TYPEB_DEBUG_MODE');
      else expect(strict).toBe('TYPEB_SIGNATURE_INVALID');
      // with debug allowed, chain and signature decide
      expect(lenient).toBe(sigOk ? 'OK' : 'TYPEB_SIGNATURE_INVALID');
    });
  }

  it('a real document fails with an expired chain at a fixed time after its chain expired (2026-01-01)', () => {
    const parsed = parseTypeB(hex('oracle-nitro-report.hex'));
    expect(codeOf(() => verifyTypeB(parsed, { root, allowDebug: false, time: AFTER_EXPIRY }))).toBe('X509_CHAIN_EXPIRED');
  });

  it('fails one millisecond after the leaf expires, with a precise message', () => {
    const parsed = parseTypeB(hex('oracle-nitro-report.hex'));
    const leafNotAfter = Date.UTC(2024, 7, 30, 11, 53, 27);
    verifyTypeB(parsed, { root, allowDebug: false, time: leafNotAfter }); // inclusive bound
    expect(() => verifyTypeB(parsed, { root, allowDebug: false, time: leafNotAfter + 1 })).toThrow(
      /typeB: certificate chain: leaf ".*" not valid at 2024-08-30T11:53:27\.001Z \(valid 2024-08-30T08:53:24Z to 2024-08-30T11:53:27Z\)/,
    );
    expect(codeOf(() => verifyTypeB(parsed, { root, allowDebug: false, time: leafNotAfter + 1 }))).toBe('X509_CHAIN_EXPIRED');
    expect(codeOf(() => verifyTypeB(parsed, { root, allowDebug: false, time: Date.UTC(2024, 7, 30, 8, 53, 23) }))).toBe(
      'X509_CHAIN_NOT_YET_VALID',
    );
  });

  it('blocky self-signed (not AWS) fails with an untrusted root', () => {
    expect(codeOf(() => verifyTypeBReport(hex('blocky-selfsigned-attestation-not-aws.hex'), { root, allowDebug: true }))).toBe(
      'X509_CHAIN_UNTRUSTED_ROOT',
    );
  });

  it('truncated fails with CBOR truncation', () => {
    expect(codeOf(() => parseTypeB(hex('oracle-nitro-report.neg-truncated.hex')))).toBe('CBOR_TRUNCATED');
  });

  it('padded-zeros fails on trailing bytes, but cutTypeBReport recovers the object', () => {
    const padded = hex('oracle-nitro-report.padded-zeros.hex');
    expect(codeOf(() => parseTypeB(padded))).toBe('CBOR_TRAILING_BYTES');
    const ledger = new Uint8Array(5120);
    ledger.set(hex('oracle-nitro-report.hex'));
    const cut = cutTypeBReport(ledger);
    expect(cut.length).toBe(4518);
    verifyTypeBReport(cut, { root, allowDebug: false });
    expect(cutTypeBReport(padded).length).toBe(4518);
  });

  it('tag18 (leading d2) is refused as tagged COSE_Sign1', () => {
    expect(() => parseTypeB(hex('oracle-nitro-report.tag18.hex'))).toThrow(/tagged COSE_Sign1 .*not supported/);
    expect(codeOf(() => parseTypeB(hex('oracle-nitro-report.tag18.hex')))).toBe('TYPEB_COSE_TAGGED');
  });

  it('base-2026-indefinite-map keeps the received payload bytes (indefinite map) and verifies', () => {
    const parsed = parseTypeB(hex('base-2026-indefinite-map.hex'));
    expect(parsed.payloadBytes[0]).toBe(0xbf);
    verifyTypeB(parsed, { root, allowDebug: false });
  });

  it('the chain cache gives identical results and counts hits', () => {
    const cache = new ChainCache();
    const good = hex('oracle-nitro-report.hex');
    verifyTypeBReport(good, { root, allowDebug: false, chainCache: cache });
    verifyTypeBReport(good, { root, allowDebug: false, chainCache: cache });
    expect([cache.misses, cache.hits]).toEqual([1, 1]);
    // warm path still checks the window and the signature
    expect(codeOf(() => verifyTypeBReport(good, { root, allowDebug: false, chainCache: cache, time: AFTER_EXPIRY }))).toBe('X509_CHAIN_EXPIRED');
    expect(codeOf(() => verifyTypeBReport(hex('oracle-nitro-report.neg-sig-flip.hex'), { root, allowDebug: false, chainCache: cache }))).toBe(
      'TYPEB_SIGNATURE_INVALID',
    );
    expect(cache.hits).toBe(3);
    // a failed chain is never cached
    const selfSigned = hex('blocky-selfsigned-attestation-not-aws.hex');
    for (let i = 0; i < 2; i++) {
      expect(codeOf(() => verifyTypeBReport(selfSigned, { root, allowDebug: true, chainCache: cache }))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    }
    expect(cache.misses).toBe(3);
    expect(cache.size).toBe(1);
  });

  it('a 5120-byte ledger report with a stray byte after the object is refused, naming the offset', () => {
    const ledger = new Uint8Array(5120);
    ledger.set(hex('oracle-nitro-report.hex'));
    ledger[5000] = 7;
    expect(() => cutTypeBReport(ledger)).toThrow(/offset 5000/);
    expect(codeOf(() => cutTypeBReport(ledger.subarray(0, 4517)))).toBe('TYPEB_REPORT_TOO_SHORT');
    expect(codeOf(() => cutTypeBReport(hex('oracle-nitro-report.tag18.hex')))).toBe('TYPEB_REPORT_PREFIX');
  });
});
