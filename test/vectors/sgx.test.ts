import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { VerifierError } from '../../src/errors.js';
import { outcomeFor, type ErrorCode } from '../../src/errorCodes.js';
import { ChainCache } from '../../src/attestation/x509/chainCache.js';
import { parseCrl } from '../../src/attestation/x509/crl.js';
import { parseCertificate } from '../../src/attestation/x509/certificate.js';
import { collateralFromDcapQvlJson, splitSignedBody, type Collateral } from '../../src/attestation/typeA/collateral.js';
import { cutTypeAReport, parseQuote } from '../../src/attestation/typeA/quote.js';
import { verifyCollateral, verifyQuote, type TypeAVerdict } from '../../src/attestation/typeA/verify.js';

const SGX = path.resolve(process.cwd(), '../shared/vectors/sgx');
const read = (p: string): Buffer => readFileSync(path.join(SGX, p));
const expected = JSON.parse(read('expected.json').toString('utf8')) as Record<string, any>;
const root = parseCertificate(new Uint8Array(read('intel-root/IntelSGXRootCA.der')));

function quoteBytes(file: string): Uint8Array {
  if (file.endsWith('.hex')) return cutTypeAReport(new Uint8Array(Buffer.from(read(file).toString('utf8').trim(), 'hex')));
  return new Uint8Array(read(file));
}

function run(quoteFile: string, collateralFile: string, timeSec: number): TypeAVerdict {
  const time = timeSec * 1000;
  const q = parseQuote(quoteBytes(quoteFile));
  const vc = verifyCollateral(collateralFromDcapQvlJson(read(collateralFile).toString('utf8')), { root, time });
  return verifyQuote(q, vc, { root, time });
}

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof VerifierError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

const positive = Object.entries(expected).filter(([, v]) => v?.reference_result?.result === 'OK');

describe('typeA vectors: positive cases of expected.json', () => {
  it('covers the six positive vectors', () => expect(positive.length).toBe(6));
  for (const [name, v] of positive) {
    it(name, () => {
      const r = v.reference_result;
      const verdict = run(v.quote, v.collateral, v.verify_at_unix);
      expect(verdict.tcbStatus).toBe(r.status);
      expect(verdict.platformStatus).toBe(r.platform_status);
      expect(verdict.qeStatus).toBe(r.qe_status);
      expect(verdict.tcbStatusCode).toBe(r.ego_tcbstatus);
      expect(verdict.advisoryIds).toEqual(r.advisory_ids);
      expect(verdict.fmspc).toBe(r.fmspc);
      expect(verdict.pceId).toBe(r.pceid);
      expect(verdict.tcbLevelIndex).toBe(r.tcb_level_index);
      expect(verdict.tcbDate).toBe(r.tcb_date);
      expect(verdict.sgxType).toBe(['Standard', 'Scalable', 'ScalableWithIntegrity'][r.sgx_type]);
      const q = parseQuote(quoteBytes(v.quote));
      expect(Buffer.from(q.isvReport.mrEnclave).toString('hex')).toBe(r.mrenclave);
      expect(Buffer.from(q.isvReport.mrSigner).toString('hex')).toBe(r.mrsigner);
      expect(q.isvReport.isvProdId).toBe(r.isvprodid);
      expect(q.isvReport.isvSvn).toBe(r.isvsvn);
      expect(q.isvReport.debug).toBe(r.debug);
      expect(Buffer.from(q.isvReport.reportData).toString('hex')).toBe(r.reportdata);
      expect(q.qeReport.isvSvn).toBe(r.qe_isvsvn);
      expect(q.header.qeSvn).toBe(r.quote_qe_svn);
      expect(q.header.pceSvn).toBe(r.quote_pce_svn);
      // The window the verdict reports is the one expected.json computed.
      expect([verdict.validFrom / 1000, verdict.validUntil / 1000]).toEqual(v.valid_window_unix);
    });
  }
});

describe('typeA vectors: negative cases and boundaries', () => {
  it('signal-dcap-expired: TCB info not current', () => {
    const v = expected['signal-dcap-expired (NEGATIVE)'];
    expect(codeOf(() => run(v.quote, v.collateral, v.verify_at_unix))).toMatch(/^TYPEA_TCB_INFO_EXPIRED: typeA: TCB info expired at 2021-05-20T18:27:52Z \(its nextUpdate; verification time 2022-05-08T08:53:20Z\)$/);
  });

  it('mobilecoin hw_quote: PCK CRL expired (everything else valid)', () => {
    const v = expected['mobilecoin-hw_quote (NEGATIVE)'];
    expect(codeOf(() => run(v.quote, v.collateral, v.verify_at_unix))).toMatch(/^CRL_EXPIRED: typeA PCK CRL: expired at 2023-05-21T22:00:36Z \(its nextUpdate; verification time 2023-07-12T22:13:20Z\)$/);
  });

  it('dcap-qvl TDX quote (v4) is rejected by name', () => {
    const v = expected['dcap-qvl-tdx_quote (v4, TDX; SGX-only verifier must reject)'];
    expect(codeOf(() => parseQuote(quoteBytes(v.quote)))).toMatch(/^QUOTE_TDX_NOT_SUPPORTED: .*version 4/);
  });

  const v2 = expected['dcap-qvl-sgx_quote+own-collateral'];
  it('1 s before TCB info issueDate → TCB info not yet valid', () => {
    expect(codeOf(() => run(v2.quote, v2.collateral, 1750330570))).toMatch(/^TYPEA_TCB_INFO_NOT_YET_VALID: .*issueDate 2025-06-19T10:56:11Z/);
  });
  it('at TCB info issueDate exactly → accepted (bounds inclusive)', () => {
    expect(run(v2.quote, v2.collateral, 1750330571).tcbStatus).toBe('ConfigurationAndSWHardeningNeeded');
  });
  it('1 s after QE identity nextUpdate → rejected (strict like Intel QVL; OE/EGo would still accept)', () => {
    expect(codeOf(() => run(v2.quote, v2.collateral, 1752919279))).toMatch(/^TYPEA_QE_IDENTITY_EXPIRED: typeA: QE identity expired at 2025-07-19T10:01:18Z \(its nextUpdate; verification time 2025-07-19T10:01:19Z\)$/);
  });
  it('at QE identity nextUpdate exactly → accepted', () => {
    expect(run(v2.quote, v2.collateral, 1752919278).tcbStatus).toBe('ConfigurationAndSWHardeningNeeded');
  });
  it('positive vector outside its window (1 year later) → rejected', () => {
    expect(codeOf(() => run(v2.quote, v2.collateral, 1751328000 + 365 * 86400))).toMatch(/^(CRL_EXPIRED|TYPEA_\w+_EXPIRED)/);
  });
});

describe('typeA vectors: the oracle report', () => {
  const v = expected['oracle-sgx-report'];
  it('oracle-sgx-report.hex: OE envelope cut, OutOfDate / EGo 1 / advisories of expected.json, MRENCLAVE from the bytes', () => {
    const recovered = new Uint8Array(Buffer.from(read(v.quote).toString('utf8').trim(), 'hex'));
    expect(recovered.length).toBe(4616);
    const q = parseQuote(cutTypeAReport(recovered));
    expect(Buffer.from(q.isvReport.mrEnclave).toString('hex')).toBe('5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a');
    const verdict = run(v.quote, v.collateral, 1790121600);
    expect(verdict).toMatchObject({ tcbStatus: 'OutOfDate', tcbStatusCode: 1, platformStatus: 'OutOfDate', qeStatus: 'UpToDate', fmspc: '00906ED50000' });
    expect(verdict.advisoryIds).toEqual([
      'INTEL-SA-00614', 'INTEL-SA-00617', 'INTEL-SA-00161', 'INTEL-SA-00219', 'INTEL-SA-00289',
      'INTEL-SA-00828', 'INTEL-SA-01153', 'INTEL-SA-00334', 'INTEL-SA-00615',
    ]);
    expect(verdict.pckCertSerial).toBe('4fb8af9acd563694338d1cbd6702a5d2ba281b69');
  });

  it('the same report from the Intel PCS wire bodies (exact signed substrings cut by splitSignedBody)', () => {
    const pcs = (f: string): string => read(`intel-pcs-2026-09-22/${f}`).toString('utf8');
    const tcb = splitSignedBody(pcs('tcb_info_00906ed50000.json'), 'tcbInfo');
    const qe = splitSignedBody(pcs('qe_identity.json'), 'enclaveIdentity');
    const q = parseQuote(quoteBytes(v.quote));
    const signing = pcs('tcb_signing_issuer_chain.pem');
    const c: Collateral = {
      pckCrl: new Uint8Array(Buffer.from(pcs('pck_crl_processor.der.hex').trim(), 'hex')),
      pckCrlIssuerChain: `${q.pckCertPems[1]}\n${q.pckCertPems[2]}\n`,
      rootCaCrl: new Uint8Array(Buffer.from(pcs('root_ca_crl.der.hex').trim(), 'hex')),
      tcbInfoIssuerChain: signing,
      tcbInfoRaw: tcb.raw,
      tcbInfoSignature: tcb.signatureHex,
      qeIdentityIssuerChain: signing,
      qeIdentityRaw: qe.raw,
      qeIdentitySignature: qe.signatureHex,
    };
    const time = 1790121600_000;
    const verdict = verifyQuote(q, verifyCollateral(c, { root, time }), { root, time });
    expect(verdict.tcbStatus).toBe('OutOfDate');
    expect(verdict.tcbLevelIndex).toBe(8);
  });

  it('E2E.md "sgx" case (README decodeReport report, a different enclave build): MRENCLAVE 58e26caa…, OutOfDate, 5 advisories', () => {
    const e2e = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/vectors/aleo/e2e/readme-decodeReport-examples.json'), 'utf8'));
    // The ledger Report struct: 10 chunks × 32 u128 fields, each 16 bytes little-endian, in order.
    const fields = [...(e2e.sgx.request.report as string).matchAll(/f\d+: (\d+)u128/g)].map((m) => BigInt(m[1]!));
    expect(fields.length).toBe(320);
    const bytes = new Uint8Array(5120);
    fields.forEach((n, i) => {
      for (let j = 0; j < 16; j++) bytes[i * 16 + j] = Number((n >> BigInt(8 * j)) & 0xffn);
    });
    const q = parseQuote(cutTypeAReport(bytes));
    expect(Buffer.from(q.isvReport.mrEnclave).toString('hex')).toBe('58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df');
    expect(Buffer.from(q.isvReport.reportData.subarray(0, 16)).toString('hex')).toBe('4ae2492c027e094054ad70cc488df591');
    const time = 1790121600_000;
    const vc = verifyCollateral(collateralFromDcapQvlJson(read(v.collateral).toString('utf8')), { root, time });
    const verdict = verifyQuote(q, vc, { root, time });
    expect(verdict).toMatchObject({ tcbStatus: 'OutOfDate', tcbStatusCode: 1, qeStatus: 'UpToDate', tcbLevelIndex: 2 });
    expect(verdict.advisoryIds).toEqual(['INTEL-SA-01153', 'INTEL-SA-00219', 'INTEL-SA-00289', 'INTEL-SA-00334', 'INTEL-SA-00615']);
    expect(verdict.pckCertSerial).toBe('423b56d3cf4f06ff37342e738fc4ecd3cebc1802');
  });
});

describe('typeA vectors: tampering with real data', () => {
  const v = expected['oracle-sgx-report'];
  const time = 1790121600_000;
  const quote = quoteBytes(v.quote);
  const collateral = collateralFromDcapQvlJson(read(v.collateral).toString('utf8'));
  const vc = verifyCollateral(collateral, { root, time });
  const chainCache = new ChainCache();
  const verifyBytes = (b: Uint8Array): TypeAVerdict => verifyQuote(parseQuote(b), vc, { root, time, chainCache });
  const flip = (o: number): Uint8Array => {
    const b = quote.slice();
    b[o]! ^= 0x01;
    return b;
  };
  const codeAt = (o: number): string => codeOf(() => verifyBytes(flip(o))).split(':')[0]!;

  it('named failures for each signed part', () => {
    expect(codeAt(64 + 48)).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE'); // MRENCLAVE
    expect(codeAt(320 + 48)).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE'); // report data
    expect(codeAt(436 + 10)).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE'); // ISV signature
    expect(codeAt(436 + 64 + 5)).toBe('TYPEA_QE_REPORT_DATA_MISMATCH'); // attestation key
    expect(codeAt(436 + 128 + 258)).toBe('TYPEA_QE_REPORT_BAD_SIGNATURE'); // QE ISVSVN
    expect(codeAt(436 + 128 + 384 + 3)).toBe('TYPEA_QE_REPORT_BAD_SIGNATURE'); // QE signature
    expect(codeAt(436 + 128 + 384 + 64 + 2 + 4)).toBe('TYPEA_QE_REPORT_DATA_MISMATCH'); // auth data
  });

  it('any single-bit change anywhere in the quote is refused with a VerifierError', () => {
    const original = verifyBytes(quote);
    expect(original.tcbStatus).toBe('OutOfDate');
    let refused = 0;
    for (let o = 0; o < quote.length; o += 13) {
      const c = codeAt(o);
      expect(c).toMatch(/^(QUOTE|TYPEA|X509|DER|CRL)_/);
      refused++;
    }
    expect(refused).toBe(Math.ceil(quote.length / 13));
    expect(chainCache.misses).toBeGreaterThan(1);
  });

  it('collateral: a changed byte or added whitespace in the signed TCB info / QE identity → bad signature', () => {
    const edit = (patch: Partial<Collateral>): string => codeOf(() => verifyCollateral({ ...collateral, ...patch }, { root, time })).split(':')[0]!;
    expect(edit({ tcbInfoRaw: collateral.tcbInfoRaw.replace('"tcbEvaluationDataNumber":20', '"tcbEvaluationDataNumber":21') })).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
    expect(edit({ tcbInfoRaw: collateral.tcbInfoRaw.replace('"version":3,', '"version": 3,') })).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
    expect(edit({ qeIdentityRaw: collateral.qeIdentityRaw.replace('"isvsvn":8', '"isvsvn":9') })).toBe('TYPEA_QE_IDENTITY_BAD_SIGNATURE');
    expect(edit({ tcbInfoSignature: collateral.tcbInfoSignature.replace(/^../, '00') })).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
    expect(edit({ tcbInfoSignature: 'abcd' })).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
    // The PCK CRL's issuer chain must not stand in for the TCB signing chain.
    expect(edit({ tcbInfoIssuerChain: collateral.pckCrlIssuerChain })).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
    // Root CA CRL signed by someone else (the PCK CRL in its place).
    expect(edit({ rootCaCrl: collateral.pckCrl })).toBe('CRL_ISSUER_MISMATCH');
  });

  it('collateral: a tampered certificate of its own chains is a collateral failure (unverifiable), like a tampered TCB info or CRL', () => {
    const full = (patch: Partial<Collateral>): string => codeOf(() => verifyCollateral({ ...collateral, ...patch }, { root, time }));
    // One bit of the first certificate's signature (the DER's last bytes), the PEM re-encoded.
    const flipFirstCert = (pem: string): string => {
      const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)!;
      const der = Buffer.from(m[1]!.replace(/\s/g, ''), 'base64');
      der[der.length - 4]! ^= 0x01;
      return pem.replace(m[0], `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----`);
    };
    const signing = full({ tcbInfoIssuerChain: flipFirstCert(collateral.tcbInfoIssuerChain) });
    expect(signing).toMatch(/^TYPEA_TCB_SIGNING_CHAIN_INVALID: typeA: X509_CHAIN_BAD_SIGNATURE: /);
    const pckCa = full({ pckCrlIssuerChain: flipFirstCert(collateral.pckCrlIssuerChain) });
    expect(pckCa).toMatch(/^TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID: typeA: X509_CHAIN_BAD_SIGNATURE: /);
    for (const code of [signing, pckCa, full({ tcbInfoSignature: collateral.tcbInfoSignature.replace(/^../, '00') })]) {
      expect(outcomeFor(false, code.split(':')[0] as ErrorCode)).toBe('unverifiable');
    }
    // The same tampering of the report's own PCK chain stays a verdict on the report (tamper tests below).
    expect(outcomeFor(false, 'X509_CHAIN_BAD_SIGNATURE')).toBe('invalid');
  });

  it('collateral for another FMSPC → TYPEA_FMSPC_MISMATCH', () => {
    const other = collateralFromDcapQvlJson(read('derived-collateral/dcap-qvl-sgx_quote.collateral-2026-09-22.json').toString('utf8'));
    const vc2 = verifyCollateral(other, { root, time });
    expect(codeOf(() => verifyQuote(parseQuote(quote), vc2, { root, time }))).toMatch(/^TYPEA_FMSPC_MISMATCH: typeA: PCK FMSPC 00906ED50000 differs from the TCB info FMSPC 00A067110000/);
  });

  it('a Platform-CA quote against a Processor-CA PCK CRL → TYPEA_PCK_CRL_ISSUER_MISMATCH', () => {
    const s = expected['signal-dcap'];
    const q = parseQuote(quoteBytes(s.quote));
    const t = s.verify_at_unix * 1000;
    const c = collateralFromDcapQvlJson(read(s.collateral).toString('utf8'));
    const vcSignal = verifyCollateral(c, { root, time: t });
    // Splice the (verified) Processor-CA PCK CRL of the oracle collateral into the Platform-CA quote's collateral.
    const vcMixed: typeof vcSignal = { ...vcSignal, pckCrl: parseCrlHex(read(v.collateral)), pckCrlIssuer: vc.pckCrlIssuer, validFrom: -Infinity, validUntil: Infinity };
    expect(codeOf(() => verifyQuote(q, vcMixed, { root, time: t }))).toMatch(/^TYPEA_PCK_CRL_ISSUER_MISMATCH/);
  });

  it('collateral verified against another root is refused', () => {
    const fake = { ...vc, rootFingerprint: '00'.repeat(32) };
    expect(codeOf(() => verifyQuote(parseQuote(quote), fake, { root, time }))).toMatch(/^TYPEA_COLLATERAL_MALFORMED/);
  });

  it('warm path with caches returns the same verdict', () => {
    const keyCache = new LRUCache<string, KeyObject>({ max: 16 });
    const a = verifyQuote(parseQuote(quote), vc, { root, time, chainCache, keyCache });
    const b = verifyQuote(parseQuote(quote), vc, { root, time, chainCache, keyCache });
    expect(b).toEqual(a);
    expect(keyCache.size).toBe(1);
    // Warm verification still re-checks time: the cached collateral is refused after it expires.
    expect(codeOf(() => verifyQuote(parseQuote(quote), vc, { root, time: vc.validUntil + 1000, chainCache, keyCache }))).toMatch(/EXPIRED/);
  });
});

function parseCrlHex(collateralJson: Buffer): ReturnType<typeof parseCrl> {
  return parseCrl(new Uint8Array(Buffer.from(JSON.parse(collateralJson.toString('utf8')).pck_crl, 'hex')));
}
