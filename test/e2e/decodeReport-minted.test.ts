/**
 * POST /decodeReport end to end with our own test PKIs: fresh typeB documents (test "AWS" root)
 * and fresh typeA quotes (test "Intel" root, PCK chain, TCB signing key) whose collateral is served
 * by the PCCS-compatible server, each failure mode seen through the HTTP endpoint.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypeBPki, defaultPcrs } from '../support/typeb-pki.js';
import { mintTypeAPki, type TestPki } from '../support/typea-pki.js';
import { bundleFromCollateral, startPccsServer, type PccsBundle, type PccsServer } from '../support/pccs-server.js';
import { makeUserData, openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'minted-'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('typeB minted documents through /decodeReport', () => {
  const pki = createTypeBPki();
  const pcrs = defaultPcrs();
  let srv: RunningServer;
  beforeAll(async () => {
    writeFileSync(join(dir, 'typeb-root.pem'), pki.rootPem);
    srv = await startServer({ trustedRoots: { typeB: join(dir, 'typeb-root.pem') }, pcrValuesTarget: pcrs.slice(0, 3).map(hex), uniqueIdTarget: '11'.repeat(32) });
  });
  afterAll(async () => srv?.close());

  const post = (userData: string, report: string) => postJson(`${srv.url}/decodeReport`, { userData, report });

  it('a fresh document bound to our userData is valid', async () => {
    const ud = makeUserData();
    const r = await post(ud.text, reportText(pki.mintDocument({ userData: ud.hash })));
    expect(r.body.errorString).toBeUndefined();
    expect(r.body).toMatchObject({ reportValid: true, reportType: 'typeB', decodedData: { url: 'api.example.com/price?symbol=BTCUSDC', attestationData: '59408.01000000' } });
    expect(Buffer.from(r.body.decodedReport.userData, 'base64')).toEqual(Buffer.from(ud.hash));
  });

  it('the same document is refused by a server trusting the real AWS root', async () => {
    const real = await startServer({ pcrValuesTarget: pcrs.slice(0, 3).map(hex), uniqueIdTarget: '11'.repeat(32) });
    try {
      const ud = makeUserData();
      const r = await postJson(`${real.url}/decodeReport`, { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash })) });
      expect(r.body).toMatchObject({ reportValid: false, errorCode: 'X509_CHAIN_UNTRUSTED_ROOT' });
    } finally {
      await real.close();
    }
  });

  const cases: [string, () => { userData: string; report: string }, string | RegExp][] = [
    ['user_data of 15 bytes', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash.subarray(0, 15) })) }; }, 'TYPEB_USER_DATA_LENGTH'],
    ['user_data of 17 bytes', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: Uint8Array.from([...ud.hash, 0]) })) }; }, 'TYPEB_USER_DATA_LENGTH'],
    ['user_data of 32 bytes', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: Uint8Array.from([...ud.hash, ...ud.hash]) })) }; }, 'TYPEB_USER_DATA_LENGTH'],
    ['no user_data', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: null })) }; }, 'TYPEB_USER_DATA_LENGTH'],
    ['userData with one field changed', () => { const ud = makeUserData(); const other = makeUserData({ attestationData: '59408.01000001' }); return { userData: other.text, report: reportText(pki.mintDocument({ userData: ud.hash })) }; }, 'USERDATA_HASH_MISMATCH'],
    ['another PCR1', () => { const ud = makeUserData(); const p = defaultPcrs(); p[1] = new Uint8Array(48).fill(7); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, pcrs: p })) }; }, 'TYPEB_PCR_MISMATCH'],
    ['debug PCR0', () => { const ud = makeUserData(); const p = defaultPcrs(); p[0] = new Uint8Array(48); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, pcrs: p })) }; }, /DEBUG/],
    ['wrong alg', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, alg: -7 })) }; }, /REPORT_UNKNOWN_KIND|TYPEB_/],
    ['wrong digest', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, digest: 'SHA256' })) }; }, /^TYPEB_/],
    ['expired leaf', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, leafNotBefore: Date.now() - 5 * 3600_000, leafNotAfter: Date.now() - 3600_000 })) }; }, 'X509_CHAIN_EXPIRED'],
    ['leaf not yet valid', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, leafNotBefore: Date.now() + 3600_000, leafNotAfter: Date.now() + 5 * 3600_000 })) }; }, 'X509_CHAIN_NOT_YET_VALID'],
    ['swapped cabundle order', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, cabundle: (b) => [b[0]!, b[2]!, b[1]!, ...b.slice(3)] })) }; }, /^X509_CHAIN_/],
    ['missing intermediate', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, cabundle: (b) => [b[0]!, ...b.slice(2)] })) }; }, /^X509_CHAIN_/],
    ['trailing non-zero byte after the COSE object', () => { const ud = makeUserData(); return { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash }), Uint8Array.of(1)) }; }, /^TYPEB_/],
    ['truncated object', () => { const ud = makeUserData(); const d = pki.mintDocument({ userData: ud.hash }); const t = d.slice(0, d.length - 10); return { userData: ud.text, report: reportText(t) }; }, /^(TYPEB_|CBOR_)/],
    ['a flipped signature byte', () => { const ud = makeUserData(); const d = pki.mintDocument({ userData: ud.hash }); d[d.length - 1]! ^= 1; return { userData: ud.text, report: reportText(d) }; }, 'TYPEB_SIGNATURE_INVALID'],
  ];
  for (const [name, build, code] of cases) {
    it(`refuses: ${name}`, async () => {
      const { userData, report } = build();
      const r = await post(userData, report);
      expect(r.status).toBe(200);
      expect(r.body.reportValid).toBe(false);
      if (typeof code === 'string') expect(r.body.errorCode).toBe(code);
      else expect(r.body.errorCode).toMatch(code);
      expect(r.body.errorString.length).toBeGreaterThan(10);
    });
  }
});

function bundleOf(p: TestPki): PccsBundle {
  return bundleFromCollateral(p.collateral);
}

describe('typeA minted quotes through /decodeReport with a PCCS serving minted collateral', () => {
  const MRENCLAVE = new Uint8Array(32).fill(0x5a);
  let pccs: PccsServer;
  const servers: RunningServer[] = [];
  const serverFor = async (p: TestPki, extra: Record<string, unknown> = {}) => {
    pccs.setBundle(bundleOf(p));
    const rootFile = join(dir, `typea-root-${servers.length}.pem`);
    writeFileSync(rootFile, p.root.pem);
    const s = await startServer({
      pccsUrl: pccs.url,
      trustedRoots: { typeA: rootFile },
      verificationTime: new Date(p.time).toISOString(),
      uniqueIdTarget: hex(MRENCLAVE),
      pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
      acceptedTcbStatuses: ['UpToDate'],
      ...extra,
    });
    servers.push(s);
    return s;
  };
  const reportData = (h: Uint8Array) => {
    const r = new Uint8Array(64);
    r.set(h);
    return r;
  };
  beforeAll(async () => {
    pccs = await startPccsServer(bundleOf(mintTypeAPki()));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await pccs?.close();
  });

  it('a fresh UpToDate quote bound to our userData is valid; OutOfDate is refused by policy', async () => {
    const upToDate = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
    const s = await serverFor(upToDate);
    const ud = makeUserData();
    const r = await postJson(`${s.url}/decodeReport`, { userData: ud.text, report: reportText(openEnclaveReport(upToDate.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE }))) });
    expect(r.body.errorString).toBeUndefined();
    expect(r.body).toMatchObject({ reportValid: true, reportType: 'typeA', decodedReport: { tcbStatus: 0, debug: false } });

    const outOfDate = mintTypeAPki();
    const s2 = await serverFor(outOfDate);
    const r2 = await postJson(`${s2.url}/decodeReport`, { userData: ud.text, report: reportText(openEnclaveReport(outOfDate.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE }))) });
    expect(r2.body).toMatchObject({ reportValid: false, errorCode: 'TYPEA_TCB_STATUS_REJECTED', decodedReport: { tcbStatus: 1, advisoryIds: ['INTEL-SA-00615'] } });
  });

  it('acceptedAdvisories: a SWHardeningNeeded level is accepted only when every advisory of it is listed; unset → unchanged; UpToDate unaffected', async () => {
    const UP = [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const SW = [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const levels = (upAdvisories: string[], swAdvisories: string[]) => [
      { components: UP, pceSvn: 13, status: 'UpToDate', advisoryIDs: upAdvisories },
      { components: SW, pceSvn: 11, status: 'SWHardeningNeeded', advisoryIDs: swAdvisories },
    ];
    const ud = makeUserData();
    const verdict = async (p: TestPki, extra: Record<string, unknown>) => {
      const s = await serverFor(p, extra);
      return (await postJson(`${s.url}/decodeReport`, { userData: ud.text, report: reportText(openEnclaveReport(p.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE }))) })).body;
    };
    const statuses = { acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] };
    const withList = { ...statuses, acceptedAdvisories: ['INTEL-SA-00615'] };

    const listed = mintTypeAPki({ levels: levels([], ['INTEL-SA-00615']) });
    const a = await verdict(listed, withList);
    expect(a.errorString).toBeUndefined();
    expect(a).toMatchObject({ reportValid: true, decodedReport: { tcbStatus: 5, tcbStatusName: 'SWHardeningNeeded', advisoryIds: ['INTEL-SA-00615'] } });

    const unlisted = mintTypeAPki({ levels: levels([], ['INTEL-SA-00615', 'INTEL-SA-00999']) });
    const b = await verdict(unlisted, { ...withList, workers: 1 }); // the option reaches the worker threads too
    expect(b).toMatchObject({ reportValid: false, errorCode: 'TYPEA_TCB_ADVISORY_REJECTED', decodedReport: { tcbStatus: 5, advisoryIds: ['INTEL-SA-00615', 'INTEL-SA-00999'] } });
    expect(b.errorString).toMatch(/advisory INTEL-SA-00999 not in acceptedAdvisories/);

    // Option unset: the status alone decides, as before.
    expect(await verdict(unlisted, statuses)).toMatchObject({ reportValid: true, decodedReport: { tcbStatus: 5 } });
    // The status must still be accepted.
    expect(await verdict(listed, { acceptedTcbStatuses: ['UpToDate'], acceptedAdvisories: ['INTEL-SA-00615'] })).toMatchObject({ reportValid: false, errorCode: 'TYPEA_TCB_STATUS_REJECTED' });
    // An UpToDate level is not subject to the list, even with an advisory on it.
    const upToDate = mintTypeAPki({ levels: levels(['INTEL-SA-00999'], ['INTEL-SA-00615']), pckTcb: { components: UP, pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
    expect(await verdict(upToDate, withList)).toMatchObject({ reportValid: true, decodedReport: { tcbStatus: 0, advisoryIds: ['INTEL-SA-00999'] } });
  });

  it('refuses a revoked PCK leaf, a wrong MRENCLAVE, a changed userData, trailing bytes and a truncated quote', async () => {
    const p = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
    const ud = makeUserData();
    const good = openEnclaveReport(p.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE }));
    const s = await serverFor(p);
    const post = (userData: string, report: string) => postJson(`${s.url}/decodeReport`, { userData, report });

    expect((await post(ud.text, reportText(openEnclaveReport(p.quote({ reportData: reportData(ud.hash), mrEnclave: new Uint8Array(32).fill(1) }))))).body.errorCode).toBe('TYPEA_UNIQUE_ID_MISMATCH');
    expect((await post(makeUserData({ timestamp: 1725008029 }).text, reportText(good))).body.errorCode).toBe('USERDATA_HASH_MISMATCH');
    expect((await post(ud.text, reportText(good, Uint8Array.of(9)))).body.errorCode).toMatch(/^(QUOTE_|TYPEA_)/);
    const truncated = good.slice(0, good.length - 100);
    new DataView(truncated.buffer).setBigUint64(8, BigInt(good.length - 16), true);
    expect((await post(ud.text, reportText(truncated))).body.errorCode).toMatch(/^QUOTE_/);
    const flipped = good.slice();
    flipped[16 + 100]! ^= 1; // inside the ISV report body: the ISV signature no longer verifies
    expect((await post(ud.text, reportText(flipped))).body.errorCode).toMatch(/^TYPEA_.*SIGNATURE/);

    // QE auth data changed after the QE signed its report: the QE report data no longer binds the key
    const authChanged = good.slice();
    authChanged[16 + 1014]! ^= 1;
    expect((await post(ud.text, reportText(authChanged))).body.errorCode).toBe('TYPEA_QE_REPORT_DATA_MISMATCH');
    // a debug enclave (ATTRIBUTES.DEBUG) is refused by default and accepted when allowDebugEnclaves is set
    const debugQuote = reportText(openEnclaveReport(p.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE, attributeFlags: 7n })));
    const dbg = await post(ud.text, debugQuote);
    expect(dbg.body).toMatchObject({ reportValid: false, errorCode: 'TYPEA_DEBUG_ENCLAVE', decodedReport: { debug: true } });
    const sDebug = await serverFor(p, { allowDebugEnclaves: true });
    expect((await postJson(`${sDebug.url}/decodeReport`, { userData: ud.text, report: debugQuote })).body.reportValid).toBe(true);

    const revoked = mintTypeAPki({ revokeLeaf: true, pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
    const s3 = await serverFor(revoked);
    const r3 = await postJson(`${s3.url}/decodeReport`, { userData: ud.text, report: reportText(openEnclaveReport(revoked.quote({ reportData: reportData(ud.hash), mrEnclave: MRENCLAVE }))) });
    expect(r3.body).toMatchObject({ reportValid: false });
    expect(r3.body.errorCode).toMatch(/REVOKED/);
  });
});
