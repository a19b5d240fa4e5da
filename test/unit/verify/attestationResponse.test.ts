/**
 * POST /verify without oracleData.userData: the response's fields re-encoded as each era's
 * notarizer would give several candidate userData structs, handed to the core together; the core
 * chooses the one the report is bound to from the report's structure (parsed once, each candidate
 * hashed at most once) and verifies it once (not every era's encoding in turn).
 */
import { describe, expect, it, vi } from 'vitest';
import { checkAttestationResponse, responseRequests } from '../../../src/verify/attestationResponse.js';
import { encodingCandidates, parseUserData } from '../../../src/encoding/eras/index.js';
import { hashReportData } from '../../../src/hash/index.js';
import * as hashing from '../../../src/hash/index.js';
import { chooseCandidate, verifyReportBytes, type VerifyDeps } from '../../../src/verify/verifyReport.js';
import { parseCertificate } from '../../../src/attestation/x509/certificate.js';
import { defaultPcrs } from '../../support/typeb-pki.js';
import type { Policy } from '../../../src/verify/types.js';
import type { VerifyOutcome } from '../../../src/verify/types.js';
import { createTypeBPki } from '../../support/typeb-pki.js';
import { reportText } from '../../support/ledger-reports.js';
import { readVectorJson } from '../../support/paths.js';
import { realResponses } from '../../support/era-vectors.js';
import { equalBytes } from '../../../src/bytes.js';

const pki = createTypeBPki();

function recorder(answer: () => VerifyOutcome) {
  const calls: (Uint8Array | readonly Uint8Array[])[] = [];
  return { calls, verify: async (userData: Uint8Array | readonly Uint8Array[]) => (calls.push(userData), answer()) };
}

const policy: Policy = { targets: { typeA: new Uint8Array(32).fill(0x5a), typeB: defaultPcrs().slice(0, 3) }, acceptedTcbStatuses: ['UpToDate'], allowDebugEnclaves: false };
const root = parseCertificate(pki.rootDer);
const deps: VerifyDeps = { roots: { typeA: root, typeB: root } };

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

  it('hands every candidate to the core at once, in registry order', async () => {
    const rec = recorder(() => ({ reportValid: true, reportType: 'typeB' }));
    const c = await checkAttestationResponse(bareResponseBoundTo(candidates[1]!, base), rec.verify);
    expect(c.valid).toBe(true);
    expect(rec.calls.length).toBe(1);
    const given = rec.calls[0] as readonly Uint8Array[];
    expect(given.length).toBe(candidates.length);
    given.forEach((g, i) => expect(equalBytes(g, candidates[i]!)).toBe(true));
  });

  it('the core verifies the candidate the report is bound to, whichever era it is, hashing each candidate at most once', async () => {
    for (const [i, chosen] of candidates.entries()) {
      const r = bareResponseBoundTo(chosen, base);
      const spy = vi.spyOn(hashing, 'hashReportData');
      const o = await verifyReportBytes(candidates, parseUserData(r.oracleData.report), policy, deps);
      // candidates up to the bound one, then no second hash for the binding check
      expect(spy.mock.calls.length).toBe(i + 1);
      spy.mockRestore();
      expect(o.reportValid, JSON.stringify(o.error)).toBe(true);
      expect(o.decodedData?.attestationData).toBe(requests[0]!.attestationData);
    }
  });

  it('when no candidate is bound, the core verifies the first and reports the binding failure', async () => {
    const r = bareResponseBoundTo(new Uint8Array(4096).fill(7), base);
    const o = await verifyReportBytes(candidates, parseUserData(r.oracleData.report), policy, deps);
    expect(o.error?.code).toBe('USERDATA_HASH_MISMATCH');
    const c = await checkAttestationResponse(r, (ud, report, opts) => verifyReportBytes(ud, report, policy, deps, opts));
    expect(c.error?.code).toBe('USERDATA_HASH_MISMATCH');
  });

  it('a caller-computed userDataHash (a batch hashed in one call) is the one the binding check uses, not hashed again', async () => {
    const chosen = candidates[0]!;
    const report = parseUserData(bareResponseBoundTo(chosen, base).oracleData.report);
    const spy = vi.spyOn(hashing, 'hashReportData');
    const right = await verifyReportBytes(chosen, report, policy, deps, { userDataHash: hashReportData(chosen) });
    const calls = spy.mock.calls.length;
    const wrong = await verifyReportBytes(chosen, report, policy, deps, { userDataHash: new Uint8Array(16).fill(1) });
    expect(spy.mock.calls.length).toBe(calls); // the binding check hashed nothing itself
    spy.mockRestore();
    expect(right.reportValid, JSON.stringify(right.error)).toBe(true);
    expect(wrong.error?.code).toBe('USERDATA_HASH_MISMATCH');
  });

  it('chooses the real userData of every real response from its real report', () => {
    for (const { name, response, userData } of realResponses()) {
      const r: any = structuredClone(response);
      const reqs = responseRequests(r);
      if (typeof reqs === 'string') throw new Error(reqs);
      const report = parseUserData(r.oracleData.report);
      const chosen = chooseCandidate(encodingCandidates(reqs), report);
      expect(equalBytes(chosen.userData, parseUserData(userData)), name).toBe(true);
    }
  });
});
