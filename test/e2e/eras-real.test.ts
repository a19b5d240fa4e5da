/**
 * The real second-generation responses (../shared/vectors/aleo/venture23 and the 2025 Gramine
 * responses of aleo/e2e) through POST /decode, /decodeReport and /verify: they decode and bind
 * (the quote's report data is the Poseidon8 hash of their userData) and their quotes verify up to
 * the collateral step: every collateral-free check (PCK chain to the Intel root, PCK extension, QE
 * and ISV report signatures) passes, as the check trace shows. No Intel collateral for their
 * platform (FMSPC 00606a000000, Platform CA) of a fitting date is in the vectors: the PCCS here
 * serves the recorded 2026-09-22 collateral of other platforms, so the verdict is exactly the
 * collateral error. A flipped bit in a signed part fails its own check before the PCCS is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashReportData } from '../../src/hash/index.js';
import { parseUserData } from '../../src/encoding/eras/index.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { VECTORS, readVectorJson } from '../support/paths.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { realResponses } from '../support/era-vectors.js';
import { reportText, openEnclaveReport } from '../support/ledger-reports.js';
import { TAMPER_CASES, tamperQuote } from '../support/typea-tamper.js';
import { traceRows, traceStoppingAt } from '../support/check-trace.js';
import { parseChunkedStruct, REPORT_CHUNKS } from '../../src/aleo/struct.js';
import { cutTypeAReport, parseQuote } from '../../src/attestation/typeA/quote.js';
import { pckExtension } from '../../src/attestation/typeA/pckExtension.js';
import { parseCertificate } from '../../src/attestation/x509/certificate.js';
import { typeA } from '../../src/verify/kinds/typeA/index.js';
import { STRUCT_CHECKS } from '../../src/verify/checks.js';

const targets = readVectorJson<any>('production-targets.json');
const files = {
  multi: 'aleo/venture23/multi-token-2026-01-14.response.json',
  weather: 'aleo/venture23/weather-2025-08-04.response.json',
  random: 'aleo/venture23/random-2025-07-21.response.json',
} as const;
const responses = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readVectorJson<any>(f)])) as Record<keyof typeof files, any>;
const MRENCLAVE = { multi: 'c89a653fc02b6765185ac94602c10b42bfbc1306009f6425aeb116bb296f2c3f', weather: 'dcba136a5a1aecc80bd58a775490013345c55ad911ab539f5e3cbcedcdd20ffb', random: '144ecf0c87d12e79ac95834ad44b6f5d0cf8785afd96c1a0bf5c5c6d873bbfd1' };
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
/** The collateral step's verdict for a platform whose TCB info the PCCS does not have. */
const COLLATERAL_ERROR = 'PCCS_NOT_FOUND';
const SECOND_GEN_FMSPC = '00606a000000';
/** The checks of a typeA report after kind detection, in run order. */
const PLAN = typeA.checks.map((c) => c.id);

const quoteOf = (reportText: string) => cutTypeAReport(parseChunkedStruct(reportText, REPORT_CHUNKS, 'report'));
const fmspcOf = (quote: Uint8Array) => Buffer.from(pckExtension(parseCertificate(parseQuote(quote).pckCertDers[0])).fmspc).toString('hex');
/** Every real response whose quote comes from the second generation's platform. */
const secondGen = realResponses().filter((r) => r.response.reportType === 'sgx' && fmspcOf(quoteOf(r.response.oracleData.report)) === SECOND_GEN_FMSPC);

const startVerifier = (pccsUrl: string) =>
  startServer({
    pccsUrl,
    verificationTime: '2026-01-15T00:00:00Z',
    uniqueIdTarget: MRENCLAVE.multi,
    pcrValuesTarget: targets.pcrValuesTarget,
    acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'],
  });

/** A PCCS serving the recorded collateral (recording each request) and a verifier using it, for the enclosing scope. */
function useVerifier(): { pccs: PccsServer; srv: RunningServer } {
  const h = {} as { pccs: PccsServer; srv: RunningServer };
  beforeAll(async () => {
    h.pccs = await startPccsServer(recordedBundle2026(VECTORS));
    h.srv = await startVerifier(h.pccs.url);
    // The server's startup probe of the PCCS is no collateral request: only those count below.
    await h.srv.pccsProbe;
    h.pccs.requests.length = 0;
  });
  afterAll(async () => {
    await h.srv?.close();
    await h.pccs?.close();
  });
  return h;
}
const shared = useVerifier();

describe('the multi-token response (10 chunks)', () => {
  const r = responses.multi;

  it('POST /decode: decodedData is the first request, decodedRequests all three with token ids and request hashes', async () => {
    const out = await postJson(`${shared.srv.url}/decode`, { userData: r.oracleData.userData });
    expect(out.body.success).toBe(true);
    expect(out.body.decodedData).toEqual({
      url: 'price_feed: aleo', requestMethod: 'GET', selector: 'weightedAvgPrice', responseFormat: 'json',
      encodingOptions: { value: 'float', precision: 6 }, attestationData: '0.124466', responseStatusCode: 200, timestamp: 1768393737,
    });
    expect(out.body.decodedRequests.map((q: any) => [q.attestationData, q.tokenId, q.timestamp, q.requestHash])).toEqual(
      r.attestationResults.map((a: any, i: number) => [['0.124466', '0.999598', '0.999403'][i], [8, 10, 9][i], 1768393737, a.requestHash.replace(/u128$/, '')]),
    );
    expect(Object.keys(out.body.decodedRequests[0])).toEqual([...Object.keys(out.body.decodedData), 'tokenId', 'requestHash', 'timestampedRequestHash']);
  });
});

describe('every second-generation response binds and verifies up to the collateral step', () => {
  for (const name of Object.keys(files) as (keyof typeof files)[]) {
    const r = responses[name];
    it(`${name}: /decodeReport answers the collateral error with the decoded requests and a matching binding hash`, async () => {
      const out = await postJson(`${shared.srv.url}/decodeReport`, { userData: r.oracleData.userData, report: r.oracleData.report });
      expect(out.body).toMatchObject({ reportType: 'typeA', reportValid: false, errorCode: COLLATERAL_ERROR });
      expect(out.body.errorString).toMatch(/00606a000000/i);
      expect(out.body.decodedReport.data).toBe(b64(hashReportData(parseUserData(r.oracleData.userData))));
      expect(Buffer.from(out.body.decodedReport.uniqueId, 'base64').toString('hex')).toBe(MRENCLAVE[name]);
      expect(out.body.decodedReport.debug).toBe(false);
      expect(out.body.decodedRequests).toHaveLength(name === 'multi' ? 3 : 1);
    });

    it(`${name}: /verify takes the response as emitted and stops at the same step (its fields match its userData)`, async () => {
      const out = await postJson(`${shared.srv.url}/verify`, { reports: [r] });
      expect(out.status).toBe(200);
      expect(out.body.validReports).toEqual([]);
      expect(out.body.reportErrors).toEqual([expect.objectContaining({ index: 0, errorCode: COLLATERAL_ERROR })]);
    });
  }
});

describe('the check trace of every second-generation quote: collateral-free checks passed, then the collateral step failed', () => {
  it('finds the seven second-generation responses (2025-06 contract tests, Gramine weather and random, multi-token)', () => {
    expect(secondGen.map((r) => r.name)).toEqual([
      'v23 sgx_response (2025-06)',
      'v23 btc_usdc (2025-06)',
      'v23 eth_usdc (2025-06)',
      'v23 aleo_usdc (2025-06)',
      'Gramine weather (2025-08-04)',
      'Gramine random (2025-07-21)',
      'multi-token (2026-01-14)',
    ]);
  });

  for (const r of secondGen) {
    it(`${r.name}: PCK chain, PCK extension, QE and ISV signatures passed; typeA.collateral failed with ${COLLATERAL_ERROR}; the rest skipped`, async () => {
      const out = await postJson(`${shared.srv.url}/decodeReport`, { userData: r.userData, report: r.response.oracleData.report });
      expect(out.body.errorCode).toBe(COLLATERAL_ERROR);
      expect(traceRows(out.body.checks, STRUCT_CHECKS.map((c) => c.id))).toEqual(STRUCT_CHECKS.map((c) => [c.id, 'passed']));
      expect(traceRows(out.body.checks, PLAN)).toEqual(traceStoppingAt(PLAN, 'typeA.collateral', COLLATERAL_ERROR));
    });
  }
});

describe('a flipped bit in a signed part of a real second-generation quote fails its own check before the PCCS is asked', () => {
  const fresh = useVerifier();

  for (const r of secondGen) {
    it(`${r.name}: ISV signature, QE report and PCK leaf each fail at their check; the PCCS received no request`, async () => {
      const quote = quoteOf(r.response.oracleData.report);
      for (const { part, check, code } of TAMPER_CASES) {
        const report = reportText(openEnclaveReport(tamperQuote(quote, part)));
        const out = await postJson(`${fresh.srv.url}/decodeReport`, { userData: r.userData, report });
        expect(out.body.errorCode, part).toBe(code);
        expect(traceRows(out.body.checks, PLAN), part).toEqual(traceStoppingAt(PLAN, check, code));
      }
      expect(fresh.pccs.requests).toEqual([]);
    });
  }

  it('control: the same quotes untouched reach the PCCS (asked for the platform\'s TCB info) and fail there', async () => {
    const r = secondGen.at(-1)!;
    const out = await postJson(`${fresh.srv.url}/decodeReport`, { userData: r.userData, report: r.response.oracleData.report });
    expect(out.body.errorCode).toBe(COLLATERAL_ERROR);
    expect(fresh.pccs.requests).toContain(`GET /sgx/certification/v4/tcb?fmspc=${SECOND_GEN_FMSPC}`);
  });
});
