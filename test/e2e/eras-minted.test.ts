/**
 * Full verdicts for every encoding era: quotes minted by the test PKI (collateral served by the
 * PCCS-compatible server) bound to REAL userData of each era — era 1: the 2024 EGo weather
 * response (legacy encoding); era 2: the 2025 Gramine weather response; era 3: the ALEO request of
 * the multi-token response as 8-chunk data (token id in byte 21); era 4: the multi-token response
 * (10 chunks, three requests). Through POST /decode, /decodeReport, /verify (the notarizer
 * response as emitted, report replaced by the minted one), the CLI (`verify`, `reverify --jsonl`)
 * and the client library. Untouched: valid; any changed byte of any chunk: refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERAS, decodeUserDataBytes, encodingCandidates, parseUserData } from '../../src/encoding/eras/index.js';
import { hashReportData } from '../../src/hash/index.js';
import { CHUNK_BYTES, formatChunkedStruct } from '../../src/aleo/struct.js';
import { responseRequests } from '../../src/verify/attestationResponse.js';
import { verifyCommand } from '../../src/cli/verify.js';
import { reverifyCommand } from '../../src/cli/reverify.js';
import { NotarizerClient } from '../../src/client/index.js';
import { mintTypeAPki } from '../support/typea-pki.js';
import { defaultPcrs } from '../support/typeb-pki.js';
import { bundleFromCollateral, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { multiToken, realResponses } from '../support/era-vectors.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const MRENCLAVE = new Uint8Array(32).fill(0x5a);
const pki = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });

/** The multi-token ALEO result as a single-request (era 3) response: userData = its era-3 encoding. */
function era3Response(): Record<string, any> {
  const m = multiToken();
  const { requestHash: _h, ...result } = m.attestationResults[0];
  const single = { reportType: 'sgx', attestationReport: m.attestationReport, ...result, timestamp: m.timestamp };
  const requests = responseRequests(single);
  if (typeof requests === 'string') throw new Error(requests);
  const [bytes, ...more] = encodingCandidates(requests, ERAS.filter((e) => e.id === 3));
  if (!bytes || more.length) throw new Error('no unique era-3 encoding');
  return { ...single, oracleData: { userData: formatChunkedStruct(bytes, 8) } };
}

/** A multi-request response whose first request (the 2025 weather request) is cut to its 512-byte chunk. */
function era4CutResponse(): Record<string, any> {
  const w = realResponses().find((v) => v.name.startsWith('Gramine weather'))!.response;
  const m = multiToken();
  const weather = { attestationData: w.attestationData, attestationRequest: w.attestationRequest, responseStatusCode: w.responseStatusCode, timestamp: w.timestamp };
  const r = { reportType: 'sgx', attestationReport: m.attestationReport, timestamp: m.timestamp, attestationResults: [weather, m.attestationResults[1]] };
  const requests = responseRequests(r);
  if (typeof requests === 'string') throw new Error(requests);
  const [bytes] = encodingCandidates(requests, ERAS.filter((e) => e.id === 4));
  return { ...r, oracleData: { userData: formatChunkedStruct(bytes!, 10) } };
}

interface EraCase {
  era: number;
  response: Record<string, any>;
  userData: Uint8Array;
  requests: number;
}

function mintedCase(era: number, r: Record<string, any>): EraCase {
  const userData = parseUserData(r.oracleData.userData);
  const rd = new Uint8Array(64);
  rd.set(hashReportData(userData));
  const oe = openEnclaveReport(pki.quote({ reportData: rd, mrEnclave: MRENCLAVE }));
  const { nonce: _n, ...rest } = r;
  return {
    era,
    userData,
    requests: decodeUserDataBytes(userData).decodedRequests.length,
    response: { ...rest, reportType: 'sgx', attestationReport: Buffer.from(oe).toString('base64'), oracleData: { ...r.oracleData, report: reportText(oe) } },
  };
}

const real = realResponses();
const cases: EraCase[] = [
  mintedCase(1, real.find((v) => v.name.startsWith('docs weather'))!.response),
  mintedCase(2, real.find((v) => v.name.startsWith('Gramine weather'))!.response),
  mintedCase(3, era3Response()),
  mintedCase(4, multiToken()),
];
const cutCase = mintedCase(4, era4CutResponse());

let dir: string;
let pccs: PccsServer;
let srv: RunningServer;
let config: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'eras-minted-'));
  pccs = await startPccsServer(bundleFromCollateral(pki.collateral));
  writeFileSync(join(dir, 'root.pem'), pki.root.pem);
  const cfg = {
    pccsUrl: pccs.url,
    trustedRoots: { typeA: join(dir, 'root.pem') },
    uniqueIdTarget: hex(MRENCLAVE),
    pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
    acceptedTcbStatuses: ['UpToDate'],
  };
  config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(cfg));
  srv = await startServer({ ...cfg, verificationTime: new Date(pki.time).toISOString() });
});
afterAll(async () => {
  await srv?.close();
  await pccs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the era-3 case is real data', () => {
  it('its userData is the multi-token c0 chunk (token id 8 in byte 21) in 8 chunks', () => {
    const c = cases[2]!;
    const multi = parseUserData(multiToken().oracleData.userData);
    const want = new Uint8Array(8 * CHUNK_BYTES);
    want.set(multi.subarray(0, CHUNK_BYTES));
    expect(hex(c.userData)).toBe(hex(want));
  });
});

describe.each(cases)('era $era through HTTP', (c) => {
  const text = () => c.response.oracleData.userData as string;
  const report = () => c.response.oracleData.report as string;

  it('POST /decode and /decodeReport: valid, decodedData = the first of decodedRequests', async () => {
    const d = await postJson(`${srv.url}/decode`, { userData: text() });
    expect(d.body.success).toBe(true);
    expect(d.body.decodedRequests).toHaveLength(c.requests);
    const r = await postJson(`${srv.url}/decodeReport`, { userData: text(), report: report() });
    expect(r.body.errorString).toBeUndefined();
    expect(r.body).toMatchObject({ reportValid: true, reportType: 'typeA', decodedData: d.body.decodedData, decodedRequests: d.body.decodedRequests });
    if (c.era >= 3) expect(r.body.decodedRequests[0].tokenId).toBe(8);
    else expect(r.body.decodedRequests[0].tokenId).toBeUndefined();
    expect(r.body.decodedRequests[0].requestHash === undefined).toBe(c.era !== 4);
  });

  it('POST /verify: the response as emitted is valid, also without oracleData.userData (re-encoded)', async () => {
    const { userData: _u, ...od } = c.response.oracleData;
    const r = await postJson(`${srv.url}/verify`, { reports: [c.response, { ...c.response, oracleData: od }] });
    expect(r.body.reportErrors).toBeUndefined();
    expect(r.body).toMatchObject({ success: true, validReports: [0, 1] });
  });

  it('POST /verify: a response whose fields differ from its userData is refused', async () => {
    const tampered = structuredClone(c.response);
    const target = Array.isArray(tampered.attestationResults) ? tampered.attestationResults[tampered.attestationResults.length - 1] : tampered;
    target.attestationData = c.era === 4 ? '0.999999' : '7.00';
    const r = await postJson(`${srv.url}/verify`, { reports: [tampered] });
    expect(r.body.validReports).toEqual([]);
    expect(r.body.reportErrors[0].errorCode).toBe('RESPONSE_FIELDS_MISMATCH');
    if (c.era === 4) expect(r.body.reportErrors[0].errorMessage).toMatch(/attestationResults\[2\] differs from chunk c2/);
  });
});

describe('era 4 with a request cut to its chunk', () => {
  it('decodes (truncated) and verifies through /decodeReport and /verify', async () => {
    const r = await postJson(`${srv.url}/decodeReport`, { userData: cutCase.response.oracleData.userData, report: cutCase.response.oracleData.report });
    expect(r.body.errorString).toBeUndefined();
    expect(r.body.reportValid).toBe(true);
    expect(r.body.decodedRequests.map((q: any) => [q.attestationData, q.truncated ?? false, q.tokenId ?? null])).toEqual([['9.90000', true, null], ['0.999598', false, 10]]);
    const { userData: _u, ...od } = cutCase.response.oracleData;
    const v = await postJson(`${srv.url}/verify`, { reports: [cutCase.response, { ...cutCase.response, oracleData: od }] });
    expect(v.body).toMatchObject({ success: true, validReports: [0, 1] });
  });
});

/** `bytes` with byte `at` changed (+1 mod 256) as struct text. */
function changed(bytes: Uint8Array, at: number): string {
  const b = bytes.slice();
  b[at] = ((b[at] ?? 0) + 1) & 0xff;
  return formatChunkedStruct(b, b.length / CHUNK_BYTES);
}

describe('any changed byte of any chunk is refused (eras 3 and 4)', () => {
  const era3 = cases[2]!;
  const era4 = cases[3]!;
  const named: [string, EraCase, number, string][] = [
    ['era 4: the second token\'s price (c1.f2)', era4, CHUNK_BYTES + 32, 'USERDATA_HASH_MISMATCH'],
    ['era 4: the third token\'s id (c2 byte 21)', era4, 2 * CHUNK_BYTES + 21, 'USERDATA_HASH_MISMATCH'],
    ['era 4: the first timestamp (c0.f3)', era4, 48, 'USERDATA_HASH_MISMATCH'],
    ['era 4: the last timestamp (c2.f3)', era4, 2 * CHUNK_BYTES + 48, 'USERDATA_HASH_MISMATCH'],
    ['era 4: a byte of empty chunk c7 (non-zero after zero chunks)', era4, 7 * CHUNK_BYTES + 100, 'USERDATA_CHUNK_AFTER_EMPTY'],
    ['era 4: a byte of the first empty chunk c3 (not a request)', era4, 3 * CHUNK_BYTES + 100, 'PROOF_DATA_TOO_SHORT|PROOF_DATA_BAD_SECTION_LENGTH|PROOF_DATA_NONZERO_PADDING'],
    ['era 3: the price (c0.f2)', era3, 32, 'USERDATA_HASH_MISMATCH'],
    ['era 3: the token id (byte 21)', era3, 21, 'USERDATA_HASH_MISMATCH'],
    ['era 3: the timestamp (c0.f3)', era3, 48, 'USERDATA_HASH_MISMATCH'],
    ['era 3: a zero byte of chunk c7', era3, 7 * CHUNK_BYTES + 5, 'PROOF_DATA_NONZERO_PADDING'],
  ];
  it.each(named)('%s', async (_name, c, at, code) => {
    const text = changed(c.userData, at);
    expect(hex(hashReportData(parseUserData(text)))).not.toBe(hex(hashReportData(c.userData)));
    const r = await postJson(`${srv.url}/decodeReport`, { userData: text, report: c.response.oracleData.report });
    expect(r.body.reportValid).toBe(false);
    expect(r.body.errorCode).toMatch(new RegExp(`^(${code})$`));
  });

  it('one byte in every chunk of the 10-chunk data, each at another offset', async () => {
    for (let chunk = 0; chunk < 10; chunk++) {
      const at = chunk * CHUNK_BYTES + ((chunk * 53 + 7) % CHUNK_BYTES);
      const r = await postJson(`${srv.url}/decodeReport`, { userData: changed(era4.userData, at), report: era4.response.oracleData.report });
      expect(r.body.reportValid, `byte ${at}`).toBe(false);
      expect(r.body.errorCode, `byte ${at}`).toMatch(/^(USERDATA_|PROOF_DATA_)/);
    }
  });
});

describe('the CLI', () => {
  it('verify --json: every era valid, with decodedRequests', async () => {
    for (const c of cases) {
      const u = join(dir, `ud-${c.era}.txt`);
      const rep = join(dir, `rep-${c.era}.txt`);
      writeFileSync(u, c.response.oracleData.userData);
      writeFileSync(rep, c.response.oracleData.report);
      let stdout = '';
      const code = await verifyCommand(['--user-data', u, '--report', rep, '--config', config, '--at', new Date(pki.time).toISOString(), '--json'], { stdout: (s) => void (stdout += s), stderr: () => {} });
      const body = JSON.parse(stdout);
      expect(body.errorString, `era ${c.era}`).toBeUndefined();
      expect(code).toBe(0);
      expect(body.decodedRequests).toHaveLength(c.requests);
    }
  });

  it('verify (readable): lists the requests of 10-chunk data with token ids', async () => {
    const c = cases[3]!;
    let stdout = '';
    await verifyCommand(['--user-data', join(dir, 'ud-4.txt'), '--report', join(dir, 'rep-4.txt'), '--config', config, '--at', new Date(pki.time).toISOString()], { stdout: (s) => void (stdout += s), stderr: () => {} });
    expect(stdout).toMatch(/report valid: {2}yes/);
    expect(stdout).toMatch(/request 1: .*price_feed: usdc \(token 10\): 0\.999598, requestHash 64212291148082447303276254314755420813/);
    expect(c.requests).toBe(3);
  });

  it('reverify --jsonl: every era once, a tampered 10-chunk update refused', async () => {
    const input = join(dir, 'in.jsonl');
    const lines = cases.map((c) => ({ id: `era${c.era}`, userData: c.response.oracleData.userData, report: c.response.oracleData.report }));
    lines.push({ id: 'tampered', userData: changed(cases[3]!.userData, CHUNK_BYTES + 32), report: cases[3]!.response.oracleData.report });
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = join(dir, 'out.jsonl');
    const code = await reverifyCommand(['--jsonl', input, '--config', config, '--at', new Date(pki.time).toISOString(), '--workers', '0', '--out', out, '--progress-interval', '0'], { stderr: () => {}, tty: false });
    const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const by = Object.fromEntries(records.map((r) => [r.id, r]));
    for (const c of cases) expect(by[`era${c.era}`], `era ${c.era}`).toMatchObject({ kind: 'typeA', reportValid: true });
    expect(by.era4.decodedRequests.map((q: any) => q.tokenId)).toEqual([8, 10, 9]);
    expect(by.tampered).toMatchObject({ reportValid: false, errorCode: 'USERDATA_HASH_MISMATCH' });
    expect(code).toBe(1);
  });
});

describe('the client library', () => {
  it('verifyAttestations accepts every era (single- and multi-request) and names a tampered one', async () => {
    const client = new NotarizerClient({ notarizers: ['http://127.0.0.1:9'], verifier: srv.url });
    await expect(client.verifyAttestations(cases.map((c) => c.response as any))).resolves.toBeUndefined();
    const tampered = structuredClone(cases[3]!.response);
    tampered.attestationResults[1].attestationData = '0.999599';
    await expect(client.verifyAttestations([cases[0]!.response as any, tampered])).rejects.toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: expect.stringMatching(/report 1 \(sgx\): RESPONSE_FIELDS_MISMATCH: .*attestationResults\[1\] differs from chunk c1/),
    });
  });
});
