/**
 * The real second-generation responses (../shared/vectors/aleo/venture23) through POST /decode,
 * /decodeReport and /verify: they decode and bind (the quote's report data is the Poseidon8 hash
 * of their userData) and their quotes verify up to the collateral step. No Intel collateral for
 * their platform (FMSPC 00606a000000, Platform CA) of a fitting date is in the vectors: the PCCS
 * here serves the recorded 2026-09-22 collateral of other platforms, so the verdict is exactly
 * the collateral error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashReportData } from '../../src/hash/index.js';
import { parseUserData } from '../../src/encoding/eras/index.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { VECTORS, readVectorJson } from '../support/paths.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';

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

let pccs: PccsServer;
let srv: RunningServer;
beforeAll(async () => {
  pccs = await startPccsServer(recordedBundle2026(VECTORS));
  srv = await startServer({
    pccsUrl: pccs.url,
    verificationTime: '2026-01-15T00:00:00Z',
    uniqueIdTarget: MRENCLAVE.multi,
    pcrValuesTarget: targets.pcrValuesTarget,
    acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'],
  });
});
afterAll(async () => {
  await srv?.close();
  await pccs?.close();
});

describe('the multi-token response (10 chunks)', () => {
  const r = responses.multi;

  it('POST /decode: decodedData is the first request, decodedRequests all three with token ids and request hashes', async () => {
    const out = await postJson(`${srv.url}/decode`, { userData: r.oracleData.userData });
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
      const out = await postJson(`${srv.url}/decodeReport`, { userData: r.oracleData.userData, report: r.oracleData.report });
      expect(out.body).toMatchObject({ reportType: 'typeA', reportValid: false, errorCode: COLLATERAL_ERROR });
      expect(out.body.errorString).toMatch(/00606a000000/i);
      expect(out.body.decodedReport.data).toBe(b64(hashReportData(parseUserData(r.oracleData.userData))));
      expect(Buffer.from(out.body.decodedReport.uniqueId, 'base64').toString('hex')).toBe(MRENCLAVE[name]);
      expect(out.body.decodedReport.debug).toBe(false);
      expect(out.body.decodedRequests).toHaveLength(name === 'multi' ? 3 : 1);
    });

    it(`${name}: /verify takes the response as emitted and stops at the same step (its fields match its userData)`, async () => {
      const out = await postJson(`${srv.url}/verify`, { reports: [r] });
      expect(out.status).toBe(200);
      expect(out.body.validReports).toEqual([]);
      expect(out.body.reportErrors).toEqual([expect.objectContaining({ index: 0, errorCode: COLLATERAL_ERROR })]);
    });
  }
});
