import { describe, expect, it } from 'vitest';
import { parseQuote } from '../../../../src/attestation/typeA/quote.js';
import {
  TYPEA_COLLATERAL_CHECKS,
  TYPEA_QUOTE_CHECKS,
  verifyCollateral,
  verifyQuote,
  verifyQuoteSignatures,
  type TypeAVerdict,
} from '../../../../src/attestation/typeA/verify.js';
import type { Collateral } from '../../../../src/attestation/typeA/collateral.js';
import { VerifierError } from '../../../../src/errors.js';
import { typeA } from '../../../../src/verify/kinds/typeA/index.js';
import type { TypeACollateralSource } from '../../../../src/attestation/typeA/verify.js';
import type { Policy } from '../../../../src/verify/types.js';
import { verifyReportBytes } from '../../../../src/verify/verifyReport.js';
import { issue, mintTypeAPki, newKey, signBody, tcbInfoBody, type TestPki, type TestPkiOptions } from '../../../support/typea-pki.js';
import { TAMPER_CASES, tamperQuote } from '../../../support/typea-tamper.js';
import { makeUserData, openEnclaveReport } from '../../../support/ledger-reports.js';
import { traceRows, traceStoppingAt } from '../../../support/check-trace.js';
import { codeOf } from '../../../support/errors.js';

function verify(pki: TestPki, quote = pki.quote(), collateral: Collateral = pki.collateral, time = pki.time): TypeAVerdict {
  const root = pki.root.cert;
  return verifyQuote(parseQuote(quote), verifyCollateral(collateral, { root, time }), { root, time });
}


const mint = (o: TestPkiOptions = {}): TestPki => mintTypeAPki(o);

describe('typeA verification with a minted test PKI', () => {
  const pki = mint();
  it('a correct quote verifies: platform OutOfDate (level 1), QE UpToDate', () => {
    expect(verify(pki)).toMatchObject({
      tcbStatus: 'OutOfDate',
      tcbStatusCode: 1,
      platformStatus: 'OutOfDate',
      qeStatus: 'UpToDate',
      advisoryIds: ['INTEL-SA-00615'],
      fmspc: '00906ED50000',
      pceId: '0000',
      tcbLevelIndex: 1,
    });
  });
  it('broken ISV signature → TYPEA_ISV_REPORT_BAD_SIGNATURE', () => {
    const q = pki.quote();
    q[436 + 5]! ^= 1;
    expect(codeOf(() => verify(pki, q))).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE');
  });
  it('QE report signed by another key → TYPEA_QE_REPORT_BAD_SIGNATURE', () => {
    const other = issue({ subject: 'Intel SGX PCK Certificate', issuer: pki.pckCa, serial: 5n, notBefore: 0, notAfter: pki.time * 2, ca: false });
    expect(codeOf(() => verify(pki, pki.quote({ pckLeaf: other })))).toBe('TYPEA_QE_REPORT_BAD_SIGNATURE');
  });
  it('attestation key not on P-256 (but bound by the QE report) → TYPEA_BAD_ATTESTATION_KEY', () => {
    expect(codeOf(() => verify(pki, pki.quote({ rawAttestationKey: new Uint8Array(64).fill(1) })))).toBe('TYPEA_BAD_ATTESTATION_KEY');
  });
  it('ISV report signed by another attestation key than the one carried → TYPEA_ISV_REPORT_BAD_SIGNATURE', () => {
    const carried = newKey().publicKey.export({ format: 'jwk' });
    const raw = Buffer.concat([Buffer.from(carried.x!, 'base64url'), Buffer.from(carried.y!, 'base64url')]);
    expect(codeOf(() => verify(pki, pki.quote({ rawAttestationKey: raw })))).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE');
  });
  it('revoked PCK leaf → TYPEA_PCK_CERT_REVOKED', () => {
    expect(codeOf(() => verify(mint({ revokeLeaf: true })))).toBe('TYPEA_PCK_CERT_REVOKED');
  });
  it('revoked PCK CA → TYPEA_PCK_CA_REVOKED', () => {
    expect(codeOf(() => verify(mint({ revokeCa: true })))).toBe('TYPEA_PCK_CA_REVOKED');
  });
  it('revoked TCB Signing certificate → TYPEA_TCB_SIGNING_CERT_REVOKED', () => {
    expect(codeOf(() => verify(mint({ revokeTcbSigning: true })))).toBe('TYPEA_TCB_SIGNING_CERT_REVOKED');
  });
  it('FMSPC mismatch → TYPEA_FMSPC_MISMATCH', () => {
    expect(codeOf(() => verify(mint({ tcbInfoFmspc: '00A067110000' })))).toBe('TYPEA_FMSPC_MISMATCH');
  });
  it('FMSPC compared as bytes: lower-case FMSPC in the TCB info matches', () => {
    expect(verify(mint({ tcbInfoFmspc: '00906ed50000' })).fmspc).toBe('00906ED50000');
  });
  it('PCE-ID mismatch → TYPEA_PCE_ID_MISMATCH', () => {
    const p = mint();
    const raw = p.collateral.tcbInfoRaw.replace('"pceId":"0000"', '"pceId":"0001"');
    const c = { ...p.collateral, tcbInfoRaw: raw, tcbInfoSignature: signBody(raw, p.tcbSigning.key) };
    expect(codeOf(() => verify(p, p.quote(), c))).toBe('TYPEA_PCE_ID_MISMATCH');
  });
  it('TCB info signed by a non-Intel-chain key → TYPEA_TCB_INFO_BAD_SIGNATURE', () => {
    const c = { ...pki.collateral, tcbInfoSignature: signBody(pki.collateral.tcbInfoRaw, newKey()) };
    expect(codeOf(() => verify(pki, pki.quote(), c))).toBe('TYPEA_TCB_INFO_BAD_SIGNATURE');
  });
  it('PCK leaf that is a CA, or with another CN → TYPEA_PCK_CHAIN_INVALID', () => {
    const mk = (subject: string, ca: boolean): Uint8Array => {
      const leaf = issue({ subject, issuer: pki.pckCa, serial: 9n, notBefore: 0, notAfter: pki.time * 2, ca, key: pki.pckLeaf.key });
      return pki.quote({ pckLeaf: leaf, pckChainPem: leaf.pem + pki.pckCa.pem + pki.root.pem });
    };
    expect(codeOf(() => verify(pki, mk('Intel SGX PCK Certificate', true)))).toBe('TYPEA_PCK_CHAIN_INVALID');
    expect(codeOf(() => verify(pki, mk('Some Other Certificate', false)))).toBe('TYPEA_PCK_CHAIN_INVALID');
    // Correct CN, no SGX extension.
    expect(codeOf(() => verify(pki, mk('Intel SGX PCK Certificate', false)))).toBe('TYPEA_PCK_EXTENSION_MISSING');
  });
  it('a PCK chain from another root → X509_CHAIN_UNTRUSTED_ROOT', () => {
    const other = mint();
    expect(codeOf(() => verify(pki, other.quote()))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
  });
  it('no matching platform TCB level → TYPEA_TCB_LEVEL_NOT_FOUND', () => {
    const levels = [{ components: [99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 0, status: 'UpToDate' }];
    expect(codeOf(() => verify(mint({ levels })))).toBe('TYPEA_TCB_LEVEL_NOT_FOUND');
  });
  it('PCESVN below every level → TYPEA_TCB_LEVEL_NOT_FOUND', () => {
    const levels = [{ components: [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 12, status: 'UpToDate' }];
    expect(codeOf(() => verify(mint({ levels })))).toBe('TYPEA_TCB_LEVEL_NOT_FOUND');
  });
  it('levels are matched in descending order regardless of their order in the document', () => {
    const levels = [
      { components: [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 1, status: 'OutOfDate' },
      { components: [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 11, status: 'SWHardeningNeeded', advisoryIDs: ['INTEL-SA-00657'] },
    ];
    expect(verify(mint({ levels }))).toMatchObject({ tcbStatus: 'SWHardeningNeeded', tcbStatusCode: 5, tcbLevelIndex: 1 });
  });
  it('platform Revoked is returned as a verdict (EGo 2), not thrown', () => {
    const levels = [{ components: [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 1, status: 'Revoked', advisoryIDs: ['INTEL-SA-00001'] }];
    expect(verify(mint({ levels }))).toMatchObject({ tcbStatus: 'Revoked', tcbStatusCode: 2, platformStatus: 'Revoked', advisoryIds: ['INTEL-SA-00001'] });
  });
  it('QE OutOfDate turns platform UpToDate into OutOfDate and adds the QE advisories', () => {
    const levels = [{ components: [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 1, status: 'UpToDate' }];
    const qeLevels = [
      { isvsvn: 10, status: 'UpToDate' },
      { isvsvn: 6, status: 'OutOfDate', advisoryIDs: ['INTEL-SA-00615'] },
    ];
    expect(verify(mint({ levels, qeLevels }))).toMatchObject({ tcbStatus: 'OutOfDate', platformStatus: 'UpToDate', qeStatus: 'OutOfDate', advisoryIds: ['INTEL-SA-00615'] });
  });
  it('QE Revoked → Revoked; QE ISVSVN below every level → TYPEA_QE_TCB_LEVEL_NOT_FOUND', () => {
    const qeLevels = [{ isvsvn: 1, status: 'Revoked' }];
    expect(verify(mint({ qeLevels })).tcbStatus).toBe('Revoked');
    const p = mint({ qeLevels: [{ isvsvn: 10, status: 'UpToDate' }] });
    expect(codeOf(() => verify(p))).toBe('TYPEA_QE_TCB_LEVEL_NOT_FOUND');
  });
  it('expired PCK CRL / TCB info / chain certificate, each named', () => {
    const DAY = 86_400_000;
    expect(codeOf(() => verify(pki, pki.quote(), pki.collateral, pki.time + 21 * DAY))).toBe('TYPEA_TCB_INFO_EXPIRED');
    expect(codeOf(() => verify(pki, pki.quote(), pki.collateral, pki.time - 11 * DAY))).toBe('TYPEA_TCB_INFO_NOT_YET_VALID');
    expect(codeOf(() => verify(pki, pki.quote(), pki.collateral, pki.time + 400 * DAY))).toBe('CRL_EXPIRED'); // root CRL first
    const raw = tcbInfoBody({ fmspc: '00906ED50000', pceId: '0000', issueDate: pki.time - 10 * DAY, nextUpdate: pki.time + 40 * DAY, levels: [{ components: new Array(16).fill(0), pceSvn: 0, status: 'UpToDate' }] });
    const c = { ...pki.collateral, tcbInfoRaw: raw, tcbInfoSignature: signBody(raw, pki.tcbSigning.key) };
    expect(codeOf(() => verify(pki, pki.quote(), c, pki.time + 22 * DAY))).toBe('TYPEA_QE_IDENTITY_EXPIRED');
  });
});

describe('typeA: the collateral-free checks run before collateral is asked for', () => {
  const pki = mint();
  const root = pki.root.cert;
  const time = pki.time;
  const userData = makeUserData();
  const reportData = new Uint8Array(64);
  reportData.set(userData.hash);
  const quote = pki.quote({ reportData });
  const policy: Policy = { targets: { typeA: new Uint8Array(32).fill(0x5a), typeB: [] }, acceptedTcbStatuses: ['UpToDate', 'OutOfDate'], allowDebugEnclaves: false };
  const PLAN = typeA.checks.map((c) => c.id);

  /** A collateral source that records each request and serves the minted collateral (or fails like a PCCS that is down). */
  function recordingSource(down = false): TypeACollateralSource & { calls: number } {
    const src = {
      calls: 0,
      async forReport(_q: unknown, t: number) {
        src.calls++;
        if (down) throw new VerifierError('PCCS_UNAVAILABLE', 'typeA collateral: PCCS is down');
        return verifyCollateral(pki.collateral, { root, time: t });
      },
    };
    return src;
  }
  const run = (q: Uint8Array, collateral?: TypeACollateralSource) =>
    verifyReportBytes(userData.bytes, openEnclaveReport(q), policy, { roots: { typeA: root, typeB: root }, time, ...(collateral ? { collateral } : {}) });

  it('verifyQuoteSignatures passes a correct quote with no collateral at all, running TYPEA_QUOTE_CHECKS in order', () => {
    const seen: string[] = [];
    const signed = verifyQuoteSignatures(parseQuote(quote), { root, time, onCheck: (id) => seen.push(id) });
    expect(seen).toEqual(TYPEA_QUOTE_CHECKS.map((c) => c.id));
    expect(Buffer.from(signed.extension.fmspc).toString('hex')).toBe('00906ed50000');
    expect(signed.chain[0].serialHex).toBe('4fb8af9acd563694338d1cbd6702a5d2ba281b69');
  });

  it('verifyQuote runs the collateral-free checks, then the ones against the collateral, with the same verdict', () => {
    const seen: string[] = [];
    const verdict = verifyQuote(parseQuote(quote), verifyCollateral(pki.collateral, { root, time }), { root, time, onCheck: (id) => seen.push(id) });
    expect(seen).toEqual([...TYPEA_QUOTE_CHECKS, ...TYPEA_COLLATERAL_CHECKS].map((c) => c.id));
    expect(verdict).toMatchObject({ tcbStatus: 'OutOfDate', tcbLevelIndex: 1, fmspc: '00906ED50000' });
  });

  it('a correct quote: every check passed, collateral asked for once', async () => {
    const src = recordingSource();
    const out = await run(quote, src);
    expect(out.error).toBeUndefined();
    expect(out.reportValid).toBe(true);
    expect(traceRows(out.checks!, PLAN)).toEqual(PLAN.map((id) => [id, 'passed']));
    expect(src.calls).toBe(1);
  });

  for (const { part, check, code } of TAMPER_CASES) {
    it(`a flipped bit in the ${part} fails ${check} with ${code}; the collateral source is never asked`, async () => {
      const src = recordingSource();
      const out = await run(tamperQuote(quote, part), src);
      expect(out.error?.code).toBe(code);
      expect(traceRows(out.checks!, PLAN)).toEqual(traceStoppingAt(PLAN, check, code));
      expect(src.calls).toBe(0);
    });
  }

  it('with the PCCS down, a forged quote still gets its own error; a correct one fails at typeA.collateral after every quote check passed', async () => {
    const down = recordingSource(true);
    expect((await run(tamperQuote(quote, 'isvSignature'), down)).error?.code).toBe('TYPEA_ISV_REPORT_BAD_SIGNATURE');
    expect(down.calls).toBe(0);
    const out = await run(quote, down);
    expect(traceRows(out.checks!, PLAN)).toEqual(traceStoppingAt(PLAN, 'typeA.collateral', 'PCCS_UNAVAILABLE'));
    expect(down.calls).toBe(1);
  });

  it('with no collateral source configured, a forged quote fails at its own check, not TYPEA_COLLATERAL_UNAVAILABLE', async () => {
    expect((await run(tamperQuote(quote, 'qeReport'))).error?.code).toBe('TYPEA_QE_REPORT_BAD_SIGNATURE');
    expect((await run(quote)).error?.code).toBe('TYPEA_COLLATERAL_UNAVAILABLE');
  });
});
