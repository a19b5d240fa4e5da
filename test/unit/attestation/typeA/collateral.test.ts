import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePemChain } from '../../../../src/attestation/x509/certificate.js';
import { collateralFromDcapQvlJson, splitSignedBody } from '../../../../src/attestation/typeA/collateral.js';
import { parsePckExtensionValue, pckExtension, SGX_EXTENSION_OID } from '../../../../src/attestation/typeA/pckExtension.js';
import { checkQeIdentityTime, checkQeReport, parseQeIdentity } from '../../../../src/attestation/typeA/qeIdentity.js';
import { parseQuote } from '../../../../src/attestation/typeA/quote.js';
import { checkTcbInfoTime, matchTcbLevel, parseTcbInfo } from '../../../../src/attestation/typeA/tcbInfo.js';
import { combineTcbStatus, egoTcbStatus, PLATFORM_TCB_STATUSES } from '../../../../src/attestation/typeA/tcbStatus.js';
import { codeOf } from '../../../support/errors.js';

const SGX = path.resolve(process.cwd(), '../shared/vectors/sgx');
const text = (p: string): string => readFileSync(path.join(SGX, p), 'utf8');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');


describe('splitSignedBody', () => {
  const wire = text('intel-pcs-2026-09-22/tcb_info_00906ed50000.json');
  const derived = collateralFromDcapQvlJson(text('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json'));
  it('cuts the exact served substring (equals the derived collateral bytes)', () => {
    const { raw, signatureHex } = splitSignedBody(wire, 'tcbInfo');
    expect(raw).toBe(derived.tcbInfoRaw);
    expect(signatureHex).toBe(derived.tcbInfoSignature);
    const qe = splitSignedBody(text('intel-pcs-2026-09-22/qe_identity.json'), 'enclaveIdentity');
    expect(qe.raw).toBe(derived.qeIdentityRaw);
  });
  it('does not re-serialise: whitespace, member order and escapes are kept verbatim', () => {
    const inner = '{ "a" : "x\\"}y" ,\n "b":[1, {"c":"]"}] }';
    const body = ` {\n  "signature" : "abcd",\n  "tcbInfo" :${inner}\n} `;
    expect(splitSignedBody(body, 'tcbInfo')).toEqual({ raw: inner, signatureHex: 'abcd' });
  });
  it('refuses missing, repeated or unexpected members and invalid JSON', () => {
    expect(codeOf(() => splitSignedBody('{"tcbInfo":{}}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"signature":"00"}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"tcbInfo":{},"signature":"00","x":1}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"tcbInfo":{},"tcbInfo":{},"signature":"00"}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"tcbInfo":[],"signature":"00"}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"tcbInfo":{},"signature":0}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('{"tcbInfo":{}', 'tcbInfo'))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => splitSignedBody('[]', 'enclaveIdentity'))).toBe('TYPEA_COLLATERAL_MALFORMED');
  });
});

describe('collateralFromDcapQvlJson', () => {
  it('reads the dcap-qvl shape', () => {
    const c = collateralFromDcapQvlJson(text('dcap-qvl/sgx_quote_collateral.json'));
    expect(c.pckCrl[0]).toBe(0x30);
    expect(c.tcbInfoRaw.startsWith('{"id":"SGX"')).toBe(true);
  });
  it('refuses missing or extra fields and bad hex', () => {
    const o = JSON.parse(text('dcap-qvl/sgx_quote_collateral.json'));
    expect(codeOf(() => collateralFromDcapQvlJson(JSON.stringify({ ...o, extra: 1 })))).toBe('TYPEA_COLLATERAL_MALFORMED');
    const { pck_crl: _, ...rest } = o;
    expect(codeOf(() => collateralFromDcapQvlJson(JSON.stringify(rest)))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => collateralFromDcapQvlJson(JSON.stringify({ ...o, pck_crl: 'zz' })))).toBe('TYPEA_COLLATERAL_MALFORMED');
    expect(codeOf(() => collateralFromDcapQvlJson('nope'))).toBe('TYPEA_COLLATERAL_MALFORMED');
  });
});

describe('parseTcbInfo', () => {
  it('v2 (sgxtcbcompNNsvn) and v3 (sgxtcbcomponents with category/type) give the same levels', () => {
    const v2 = parseTcbInfo(text('signal-libsignal/tcb_info_v2.json'));
    const v3 = parseTcbInfo(text('signal-libsignal/tcb_info_v3.json'));
    expect(v2.version).toBe(2);
    expect(v3.version).toBe(3);
    expect(hex(v2.fmspc)).toBe('00606a000000');
    expect(v2.tcbLevels[0]).toMatchObject({ components: [7, 9, 3, 3, 255, 255, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, tcbStatus: 'SWHardeningNeeded' });
    expect(v3.tcbLevels.map((l) => [l.components, l.pceSvn, l.tcbStatus])).toEqual(v2.tcbLevels.map((l) => [l.components, l.pceSvn, l.tcbStatus]));
    expect(v3.tcbLevels[0]!.advisoryIds).toEqual(['INTEL-SA-00615', 'INTEL-SA-00657']);
  });
  it('FMSPC in either case decodes to the same bytes', () => {
    const t = parseTcbInfo(JSON.stringify(JSON.parse(text('teekit/tcbInfo-sgx-00906ed50000.json')).tcbInfo));
    expect(hex(t.fmspc)).toBe('00906ed50000');
  });
  const base = JSON.parse(text('signal-libsignal/tcb_info_v3.json'));
  const mutate = (f: (o: any) => void): string => {
    const o = structuredClone(base);
    f(o);
    return JSON.stringify(o);
  };
  it('refuses malformed documents with named errors', () => {
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.version = 4))))).toBe('TYPEA_TCB_INFO_UNSUPPORTED_VERSION');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.id = 'TDX'))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.extra = 1))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.fmspc = '00606A00000'))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.issueDate = '2023-02-30T00:00:00Z'))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.tcbLevels[0].tcbStatus = 'Fine'))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => o.tcbLevels[0].tcb.sgxtcbcomponents.pop())))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.tcbLevels[0].tcb.sgxtcbcomponents[0].svn = 256))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo(mutate((o) => (o.tcbLevels = []))))).toBe('TYPEA_TCB_INFO_MALFORMED');
    expect(codeOf(() => parseTcbInfo('{'))).toBe('TYPEA_TCB_INFO_MALFORMED');
  });
  it('matchTcbLevel: first level with every component and PCESVN ≤ the PCK; none → TYPEA_TCB_LEVEL_NOT_FOUND', () => {
    const t = parseTcbInfo(text('signal-libsignal/tcb_info_v3.json'));
    expect(matchTcbLevel(t, [7, 9, 3, 3, 255, 255, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 13).tcbStatus).toBe('SWHardeningNeeded');
    const lower = matchTcbLevel(t, [7, 9, 3, 3, 255, 255, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 12);
    expect(lower.index).toBeGreaterThan(0);
    expect(codeOf(() => matchTcbLevel(t, new Array(16).fill(0), 0))).toBe('TYPEA_TCB_LEVEL_NOT_FOUND');
  });
  it('an expired TCB info is named by its nextUpdate, the verification time beside it', () => {
    const t = parseTcbInfo(text('signal-libsignal/tcb_info_v3.json'));
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
    const late = t.nextUpdate + 86_400_000;
    expect(() => checkTcbInfoTime(t, late)).toThrow(`TCB info expired at ${iso(t.nextUpdate)} (its nextUpdate; verification time ${iso(late)})`);
    expect(() => checkTcbInfoTime(t, t.issueDate - 1000)).toThrow(`TCB info not yet valid at ${iso(t.issueDate - 1000)} (issueDate ${iso(t.issueDate)})`);
  });
});

describe('QE identity', () => {
  const raw = collateralFromDcapQvlJson(text('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json')).qeIdentityRaw;
  const id = parseQeIdentity(raw);
  const q = parseQuote(new Uint8Array(Buffer.from(text('oracle-sgx-report.hex').trim(), 'hex')).subarray(16));
  it('parses and matches the oracle QE report (ISVSVN 9 → UpToDate)', () => {
    expect(id.tcbLevels.map((l) => l.isvSvn)).toEqual([8, 6, 5, 4, 2, 1]);
    expect(checkQeReport(id, q.qeReport)).toMatchObject({ isvSvn: 8, tcbStatus: 'UpToDate' });
  });
  it('names each mismatch', () => {
    const body = (off: number, b: number): typeof q.qeReport => {
      const r = q.qeReport.raw.slice();
      r[off] = b;
      return parseQuote(Uint8Array.from([...q.raw.subarray(0, 436 + 128), ...r, ...q.raw.subarray(436 + 128 + 384)])).qeReport;
    };
    expect(codeOf(() => checkQeReport(id, body(16, 1)))).toBe('TYPEA_QE_MISCSELECT_MISMATCH');
    expect(codeOf(() => checkQeReport(id, body(48, 0x17)))).toBe('TYPEA_QE_ATTRIBUTES_MISMATCH');
    expect(checkQeReport(id, body(48, 0x15 | 0x04)).tcbStatus).toBe('UpToDate'); // bit 2 is masked out
    expect(codeOf(() => checkQeReport(id, body(128, 0)))).toBe('TYPEA_QE_MRSIGNER_MISMATCH');
    expect(codeOf(() => checkQeReport(id, body(256, 2)))).toBe('TYPEA_QE_ISVPRODID_MISMATCH');
    expect(checkQeReport(id, body(258, 7))).toMatchObject({ isvSvn: 6, tcbStatus: 'OutOfDate', advisoryIds: ['INTEL-SA-00615'] });
    expect(codeOf(() => checkQeReport(id, body(258, 0)))).toBe('TYPEA_QE_TCB_LEVEL_NOT_FOUND');
  });
  it('an expired QE identity is named by its nextUpdate, the verification time beside it', () => {
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
    const late = id.nextUpdate + 3_600_000;
    expect(() => checkQeIdentityTime(id, late)).toThrow(`QE identity expired at ${iso(id.nextUpdate)} (its nextUpdate; verification time ${iso(late)})`);
  });
  it('refuses other ids and versions', () => {
    expect(codeOf(() => parseQeIdentity(raw.replace('"id":"QE"', '"id":"TD_QE"')))).toBe('TYPEA_QE_IDENTITY_MALFORMED');
    expect(codeOf(() => parseQeIdentity(raw.replace('"version":2', '"version":1')))).toBe('TYPEA_QE_IDENTITY_UNSUPPORTED_VERSION');
  });
});

describe('TCB status', () => {
  it('Intel combination rule', () => {
    const out = PLATFORM_TCB_STATUSES.map((p) => [p, combineTcbStatus(p, 'UpToDate'), combineTcbStatus(p, 'OutOfDate'), combineTcbStatus(p, 'Revoked')]);
    expect(out).toEqual([
      ['UpToDate', 'UpToDate', 'OutOfDate', 'Revoked'],
      ['SWHardeningNeeded', 'SWHardeningNeeded', 'OutOfDate', 'Revoked'],
      ['ConfigurationNeeded', 'ConfigurationNeeded', 'OutOfDateConfigurationNeeded', 'Revoked'],
      ['ConfigurationAndSWHardeningNeeded', 'ConfigurationAndSWHardeningNeeded', 'OutOfDateConfigurationNeeded', 'Revoked'],
      ['OutOfDate', 'OutOfDate', 'OutOfDate', 'Revoked'],
      ['OutOfDateConfigurationNeeded', 'OutOfDateConfigurationNeeded', 'OutOfDateConfigurationNeeded', 'Revoked'],
      ['Revoked', 'Revoked', 'Revoked', 'Revoked'],
    ]);
  });
  it('EGo numbering', () => {
    expect(PLATFORM_TCB_STATUSES.map(egoTcbStatus)).toEqual([0, 5, 3, 6, 1, 4, 2]);
  });
});

describe('PCK SGX extension', () => {
  const oracle = parseQuote(new Uint8Array(Buffer.from(text('oracle-sgx-report.hex').trim(), 'hex')).subarray(16));
  const leaf = parsePemChain(oracle.pckChainPem)[0]!;
  it('oracle PCK (Processor CA): the README values', () => {
    const e = pckExtension(leaf);
    expect(hex(e.fmspc)).toBe('00906ed50000');
    expect(hex(e.pceId)).toBe('0000');
    expect(e.sgxType).toBe('Standard');
    expect(e.tcbComponents).toEqual([17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(e.pceSvn).toBe(11);
    expect(hex(e.cpuSvn)).toBe('11110204018006000000000000000000');
    expect(hex(e.ppid)).toBe('31448b47d38df8334d54a9bf3da72c69');
    expect(e.platformInstanceId).toBeUndefined();
    expect(e.configuration).toBeUndefined();
  });
  it('Signal PCK (Platform CA): SGX type Scalable, PlatformInstanceID and configuration', () => {
    const q = parseQuote(new Uint8Array(readFileSync(path.join(SGX, 'derived-collateral/signal-dcap.quote.bin'))));
    const e = pckExtension(parsePemChain(q.pckChainPem)[0]!);
    expect(e.sgxType).toBe('Scalable');
    expect(e.platformInstanceId?.length).toBe(16);
    expect(Object.keys(e.configuration ?? {}).sort()).toEqual(['cachedKeys', 'dynamicPlatform', 'smtEnabled']);
    expect(e.tcbComponents.slice(0, 7)).toEqual([7, 9, 3, 3, 255, 255, 1]);
  });
  it('truncated or edited extension values → TYPEA_PCK_EXTENSION_MALFORMED, missing → _MISSING', () => {
    const v = leaf.extensions.find((x) => x.oid === SGX_EXTENSION_OID)!.value;
    for (let n = 0; n < v.length; n += 7) expect(codeOf(() => parsePckExtensionValue(v.subarray(0, n)))).toBe('TYPEA_PCK_EXTENSION_MALFORMED');
    for (let i = 0; i < v.length; i += 5) {
      const b = v.slice();
      b[i]! ^= 0x40;
      const c = codeOf(() => parsePckExtensionValue(b));
      expect(['TYPEA_PCK_EXTENSION_MALFORMED', 'OK']).toContain(c);
    }
    expect(codeOf(() => pckExtension({ ...leaf, extensions: [] }))).toBe('TYPEA_PCK_EXTENSION_MISSING');
  });
});
