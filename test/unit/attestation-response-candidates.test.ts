/**
 * POST /verify without oracleData.userData: the response's fields re-encoded as each era's
 * notarizer would give several candidate userData structs; the one the report is bound to is
 * chosen from the report's structure and verified once (not every era's encoding in turn).
 */
import { describe, expect, it } from 'vitest';
import { checkAttestationResponse, responseRequests } from '../../src/verify/attestationResponse.js';
import { encodingCandidates, parseUserData } from '../../src/encoding/eras/index.js';
import { hashReportData } from '../../src/hash/index.js';
import type { VerifyOutcome } from '../../src/verify/types.js';
import { createTypeBPki } from '../support/typeb-pki.js';
import { reportText } from '../support/ledger-reports.js';
import { readVectorJson } from '../support/paths.js';
import { realResponses } from '../support/era-vectors.js';
import { equalBytes } from '../../src/bytes.js';

const pki = createTypeBPki();

function recorder(answer: (userData: Uint8Array) => VerifyOutcome) {
  const calls: Uint8Array[] = [];
  return { calls, verify: async (userData: Uint8Array) => (calls.push(userData.slice()), answer(userData)) };
}

/** A first-generation single-request response (the real docs Nitro example) without its userData, bound by a minted document to `userData`. */
function bareResponseBoundTo(userData: Uint8Array | undefined, base: any): any {
  const r = structuredClone(base);
  delete r.oracleData.userData;
  delete r.attestationReport;
  const doc = pki.mintDocument(userData ? { userData: hashReportData(userData) } : {});
  r.oracleData.report = reportText(doc);
  delete r.nonce;
  return r;
}

describe('/verify entries without userData', () => {
  const base = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
  const requests = responseRequests(base);
  if (typeof requests === 'string') throw new Error(requests);
  const candidates = encodingCandidates(requests);

  it('the real response re-encodes to more than one era candidate (what makes the choice matter)', () => {
    expect(candidates.length).toBeGreaterThan(1);
  });

  it('verifies once, with the candidate the report is bound to, whichever era it is', async () => {
    for (const chosen of candidates) {
      const rec = recorder(() => ({ reportValid: true, reportType: 'typeB' }));
      const c = await checkAttestationResponse(bareResponseBoundTo(chosen, base), rec.verify);
      expect(c).toEqual({ valid: true });
      expect(rec.calls.length).toBe(1);
      expect(equalBytes(rec.calls[0]!, chosen)).toBe(true);
    }
  });

  it('when no candidate is bound, verifies the first once and reports the binding failure', async () => {
    const rec = recorder(() => ({ reportValid: false, reportType: 'typeB', error: { code: 'USERDATA_HASH_MISMATCH', message: 'x' } }));
    const c = await checkAttestationResponse(bareResponseBoundTo(new Uint8Array(4096).fill(7), base), rec.verify);
    expect(c.error?.code).toBe('USERDATA_HASH_MISMATCH');
    expect(rec.calls.length).toBe(1);
    expect(equalBytes(rec.calls[0]!, candidates[0]!)).toBe(true);
  });

  it('picks the real userData of every real response from its real report', async () => {
    for (const { name, response, userData } of realResponses()) {
      const r: any = structuredClone(response);
      delete r.oracleData.userData;
      const rec = recorder(() => ({ reportValid: true, reportType: r.reportType === 'sgx' ? 'typeA' : 'typeB' }));
      await checkAttestationResponse(r, rec.verify);
      expect(rec.calls.length, name).toBe(1);
      expect(equalBytes(rec.calls[0]!, parseUserData(userData)), name).toBe(true);
    }
  });
});
