/**
 * A debug Nitro enclave (all-zero PCRs, minted by our test PKI) verifies valid through
 * /decodeReport against all-zero targets when allowDebugEnclaves is true.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypeBPki, defaultPcrs } from '../support/typeb-pki.js';
import { makeUserData, reportText } from '../support/ledger-reports.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';

const pki = createTypeBPki();
const zero = () => new Uint8Array(48);
const debugPcrs = defaultPcrs().map((p, i) => (i < 3 ? zero() : p));
let srv: RunningServer;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'debug-targets-'));
  writeFileSync(join(dir, 'typeb-root.pem'), pki.rootPem);
  srv = await startServer({ trustedRoots: { typeB: 'typeb-root.pem' }, allowDebugEnclaves: true, uniqueIdTarget: '11'.repeat(32), pcrValuesTarget: ['00'.repeat(48), '00'.repeat(48), '00'.repeat(48)] }, dir);
});
afterAll(async () => srv?.close());

describe('debug targets', () => {
  it('a debug document verifies valid against all-zero targets', async () => {
    const ud = makeUserData();
    const r = await postJson(`${srv.url}/decodeReport`, { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash, pcrs: debugPcrs })) });
    expect(r.status).toBe(200);
    expect(r.body.errorString).toBeUndefined();
    expect(r.body).toMatchObject({ reportType: 'typeB', reportValid: true });
  });

  it('a production document (non-zero PCRs) does not match the debug targets', async () => {
    const ud = makeUserData();
    const r = await postJson(`${srv.url}/decodeReport`, { userData: ud.text, report: reportText(pki.mintDocument({ userData: ud.hash })) });
    expect(r.body).toMatchObject({ reportValid: false, errorCode: 'TYPEB_PCR_MISMATCH' });
  });
});
