/**
 * POST /decodeReport over real sockets with the two real end-to-end cases of E2E.md: the Nitro
 * document (verified at its own timestamp) and the SGX quote verified against the real Intel
 * collateral of 2026-09-22 served by a PCCS-compatible server running as its own process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { VECTORS } from '../support/paths.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { recordedBundle2026 } from '../support/pccs-server.js';
import { useNitroServers, examples, oracleDoc, targets, tweak } from '../support/nitro-pair.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';

describe('typeB real case (nitro)', () => {
  const srv = useNitroServers();

  it('is valid with its own PCRs as targets and returns the documented decodedData and decodedReport', async () => {
    const r = await postJson(`${srv.own.url}/decodeReport`, examples.nitro.request);
    expect(r.status).toBe(200);
    expect(r.body.errorString).toBeUndefined();
    expect(r.body.reportValid).toBe(true);
    expect(r.body.reportType).toBe('typeB');
    expect(r.body.decodedData).toEqual(examples.nitro.response.decodedData);
    const { aleoPcrs, ...rest } = examples.nitro.response.decodedReport;
    expect(r.body.decodedReport).toMatchObject({ ...rest, ledgerPcrs: aleoPcrs });
    expect(typeof r.body.decodedReport.protectedCose).toBe('string');
    expect(Buffer.from(r.body.decodedReport.signature, 'base64')).toHaveLength(96);
  });

  it('is invalid with the shipped default targets, still showing what was sent', async () => {
    const r = await postJson(`${srv.shipped.url}/decodeReport`, examples.nitro.request);
    expect(r.status).toBe(200);
    expect(r.body.reportValid).toBe(false);
    expect(r.body.errorCode).toBe('TYPEB_PCR_MISMATCH');
    expect(r.body.errorString).toMatch(/^PCR0 does not match target/);
    expect(r.body.decodedData).toEqual(examples.nitro.response.decodedData);
    expect(r.body.decodedReport.moduleID).toBe(oracleDoc.module_id);
  });

  it('any change to userData breaks the binding', async () => {
    const r = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, userData: tweak(examples.nitro.request.userData, 0, 2) });
    expect(r.body.reportValid).toBe(false);
    expect(r.body.errorCode).toBe('USERDATA_HASH_MISMATCH');
    expect(r.body.errorString).toMatch(/^userData hash does not match report/);
  });

  it('a single changed byte in the report makes it invalid', async () => {
    for (const [c, f] of [[0, 5], [3, 17], [8, 20]] as const) {
      const r = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, report: tweak(examples.nitro.request.report, c, f) });
      expect(r.body.reportValid, `c${c}.f${f}`).toBe(false);
      expect(r.body.errorString).toBeTruthy();
    }
  });

  it('a matching request nonce is accepted and another one refused', async () => {
    const ok = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, nonce: oracleDoc.nonce });
    expect(ok.body.reportValid).toBe(true);
    const bad = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, nonce: '00'.repeat(32) });
    expect(bad.body).toMatchObject({ reportValid: false, errorCode: 'TYPEB_NONCE_MISMATCH' });
  });
});

describe('typeA real case (sgx) with a PCCS process serving the 2026-09-22 collateral', () => {
  let pccs: PccsProcess;
  const servers: RunningServer[] = [];
  const start = async (extra: Record<string, unknown>) => {
    const s = await startServer({
      pccsUrl: pccs.url,
      verificationTime: '2026-09-23T00:00:00Z',
      uniqueIdTarget: SGX_MRENCLAVE,
      pcrValuesTarget: targets.pcrValuesTarget,
      ...extra,
    });
    servers.push(s);
    return s;
  };
  beforeAll(async () => {
    pccs = await startPccsProcess(recordedBundle2026(VECTORS));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await pccs?.stop();
  });

  it('default policy: invalid because the platform is OutOfDate (tcbStatus 1), with decoded views', async () => {
    const s = await start({});
    const r = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
    expect(r.status).toBe(200);
    expect(r.body.reportType).toBe('typeA');
    expect(r.body.reportValid).toBe(false);
    expect(r.body.errorCode).toBe('TYPEA_TCB_STATUS_REJECTED');
    expect(r.body.errorString).toMatch(/OutOfDate/);
    expect(r.body.decodedData).toEqual(examples.sgx.response.decodedData);
    const { aleoUniqueId, aleoSignerId, aleoProductId, tcbStatus: _old, ...rest } = examples.sgx.response.decodedReport;
    expect(r.body.decodedReport).toMatchObject({ ...rest, ledgerUniqueId: aleoUniqueId, ledgerSignerId: aleoSignerId, ledgerProductId: aleoProductId, tcbStatus: 1 });
    expect(r.body.decodedReport.advisoryIds).toEqual(expect.arrayContaining(['INTEL-SA-01153', 'INTEL-SA-00219', 'INTEL-SA-00289', 'INTEL-SA-00334', 'INTEL-SA-00615']));
  });

  it('valid when OutOfDate is accepted', async () => {
    const s = await start({ acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'] });
    const r = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
    expect(r.body.errorString).toBeUndefined();
    expect(r.body.reportValid).toBe(true);
    expect(r.body.decodedReport.tcbStatus).toBe(1);
  });

  it('invalid with another unique ID target', async () => {
    const s = await start({ acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'], uniqueIdTarget: targets.uniqueIdTarget });
    const r = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
    expect(r.body).toMatchObject({ reportValid: false, errorCode: 'TYPEA_UNIQUE_ID_MISMATCH' });
    expect(r.body.errorString).toMatch(/^unique ID does not match target/);
  });

  it('fails at the real time of today (the collateral has expired)', async () => {
    const s = await start({ acceptedTcbStatuses: ['OutOfDate'], verificationTime: undefined });
    const r = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
    expect(r.body.reportValid).toBe(false);
    expect(r.body.decodedReport.tcbStatus).toBe(7);
  });

  it('userData changes and trailing report bytes are refused', async () => {
    const s = await start({ acceptedTcbStatuses: ['OutOfDate'] });
    const r = await postJson(`${s.url}/decodeReport`, { ...examples.sgx.request, userData: tweak(examples.sgx.request.userData, 0, 3) });
    expect(r.body).toMatchObject({ reportValid: false, errorCode: 'USERDATA_HASH_MISMATCH' });
    const r2 = await postJson(`${s.url}/decodeReport`, { ...examples.sgx.request, report: tweak(examples.sgx.request.report, 9, 31) });
    expect(r2.body.reportValid).toBe(false);
  });
});

describe('/decodeReport request errors', () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer({ uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget });
  });
  afterAll(async () => s?.close());

  it('unknown report kind is a clear error, not a crash', async () => {
    const zeros = `{ ${Array.from({ length: 10 }, (_, c) => `c${c}: { ${Array.from({ length: 32 }, (_, f) => `f${f}: ${c === 0 && f === 0 ? 7 : 0}u128`).join(', ')} }`).join(', ')} }`;
    const r = await postJson(`${s.url}/decodeReport`, { userData: examples.nitro.request.userData, report: zeros });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ reportValid: false, errorCode: 'REPORT_UNKNOWN_KIND' });
    expect(r.body.decodedData).toEqual(examples.nitro.response.decodedData);
  });

  it('wrong chunk counts and bad JSON get precise errors', async () => {
    // a report as userData has a userData chunk count (10) but fits no userData era
    const r = await postJson(`${s.url}/decodeReport`, { userData: examples.nitro.request.report, report: examples.nitro.request.report });
    expect(r.status).toBe(200);
    expect(r.body.reportValid).toBe(false);
    expect(r.body.errorCode).toBe('USERDATA_ERA_UNKNOWN');
    const nine = examples.nitro.request.report.replace(/,\s*c9:\s*\{[^}]*\}/, '');
    const r9 = await postJson(`${s.url}/decodeReport`, { userData: nine, report: examples.nitro.request.report });
    expect(r9.body).toMatchObject({ reportValid: false, errorCode: 'STRUCT_CHUNK_COUNT' });
    expect(r9.body.errorString).toMatch(/has 9 chunks, expected 8 or 10/);
    expect((await postJson(`${s.url}/decodeReport`, { userData: 'x' })).status).toBe(400);
    expect((await postJson(`${s.url}/decodeReport`, '{"userData":"x","report":')).status).toBe(400);
  });
});
