/**
 * Intel's signed lists of TCB evaluation data numbers and the rule "the evaluation in force at T"
 * (issue 49): the real list of 2025-06-02 authenticated under the pinned Intel root (at its own
 * issueDate, by its signature), refused when a byte changes; a list under the test PKI; the rule on
 * the real list for both update policies, with every undecidable case named; and, as a property
 * over minted sequences of evaluations and lists cut from them, the rule never answers other than
 * the truth and answers whenever the lists at hand rule out every other evaluation.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCertificate } from '../../../../src/attestation/x509/certificate.js';
import { verifyTcbEvaluationList, parseTcbEvaluationList, type TcbEvaluation, type TcbEvaluationList } from '../../../../src/attestation/typeA/tcbEvaluations.js';
import { evaluationInForce, inForceFrom, TCB_UPDATE_POLICIES, type TcbUpdatePolicy } from '../../../../src/attestation/typeA/evaluationInForce.js';
import { VECTORS } from '../../../support/paths.js';
import { mintTypeAPki, signBody } from '../../../support/typea-pki.js';
import { codeOf } from '../../../support/errors.js';

const fixture = JSON.parse(readFileSync(resolve(process.cwd(), 'test/fixtures/intel/tcb-evaluation-numbers-2025-06-02.json'), 'utf8')) as { raw: string; signature: string };
const intelRoot = parseCertificate(new Uint8Array(readFileSync(resolve(VECTORS, 'sgx/intel-root/IntelSGXRootCA.der'))));
const intelChain = readFileSync(resolve(VECTORS, 'sgx/intel-pcs-2026-09-22/tcb_signing_issuer_chain.pem'), 'utf8');
const real = { raw: fixture.raw, signatureHex: fixture.signature, issuerChain: intelChain };
const at = (s: string) => Date.parse(s);

describe('the signed list of TCB evaluation data numbers', () => {
  it("Intel's list of 2025-06-02 verifies under the pinned root, at its issueDate, whatever the clock", () => {
    const list = verifyTcbEvaluationList(real, intelRoot);
    expect(list).toEqual({
      id: 'SGX',
      issueDate: at('2025-06-02T02:43:30Z'),
      nextUpdate: at('2025-07-02T02:43:30Z'),
      evaluations: [
        { number: 19, recoveryEventDate: at('2025-05-13T00:00:00Z'), tcbDate: at('2025-05-14T00:00:00Z') },
        { number: 18, recoveryEventDate: at('2024-11-12T00:00:00Z'), tcbDate: at('2024-11-13T00:00:00Z') },
        { number: 17, recoveryEventDate: at('2024-03-12T00:00:00Z'), tcbDate: at('2024-03-13T00:00:00Z') },
      ],
    });
  });

  it('is refused when a byte of the signed text, the signature or the chain changes', () => {
    const code = (patch: Partial<typeof real>) => codeOf(() => verifyTcbEvaluationList({ ...real, ...patch }, intelRoot));
    expect(code({ raw: real.raw.replace('"tcbEvaluationDataNumber":17', '"tcbEvaluationDataNumber":16') })).toBe('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE');
    expect(code({ raw: real.raw.replace('"version":1,', '"version": 1,') })).toBe('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE');
    expect(code({ signatureHex: real.signatureHex.replace(/^../, '00') })).toBe('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE');
    expect(code({ signatureHex: 'ab' })).toBe('TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE');
    expect(code({ issuerChain: readFileSync(resolve(VECTORS, 'sgx/intel-root/IntelSGXRootCA.pem'), 'utf8') })).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
    expect(code({ issuerChain: intelChain.slice(0, 300) })).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
    // A chain to another root (the test PKI's), or another root pinned: refused.
    expect(code({ issuerChain: mintTypeAPki().collateral.tcbInfoIssuerChain })).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
    expect(codeOf(() => verifyTcbEvaluationList(real, mintTypeAPki().root.cert))).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
  });

  it('reads strictly: unknown fields, repeated numbers, bad dates and an empty list are malformed', () => {
    const body = JSON.parse(real.raw) as Record<string, unknown>;
    const parse = (o: unknown) => codeOf(() => parseTcbEvaluationList(JSON.stringify(o)));
    expect(parse({ ...body, extra: 1 })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    expect(parse({ ...body, tcbEvalNumbers: [] })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    const entries = body.tcbEvalNumbers as Record<string, unknown>[];
    expect(parse({ ...body, tcbEvalNumbers: [entries[0], entries[0]] })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    expect(parse({ ...body, tcbEvalNumbers: [{ ...entries[0], tcbDate: '2025-02-30T00:00:00Z' }] })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    expect(parse({ ...body, version: 2 })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    expect(parse({ ...body, id: 'SEV' })).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
    expect(codeOf(() => parseTcbEvaluationList('[1]'))).toBe('TYPEA_TCB_EVALUATIONS_MALFORMED');
  });

  it('a list minted under the test PKI verifies under the test root only', () => {
    const pki = mintTypeAPki();
    const day = (ms: number) => new Date(ms).toISOString().replace('.000', '');
    const raw = real.raw.replace('"issueDate":"2025-06-02T02:43:30Z"', `"issueDate":"${day(pki.time)}"`).replace('"nextUpdate":"2025-07-02T02:43:30Z"', `"nextUpdate":"${day(pki.time + 86_400_000)}"`);
    const minted = { raw, signatureHex: signBody(raw, pki.tcbSigning.key), issuerChain: pki.collateral.tcbInfoIssuerChain };
    expect(verifyTcbEvaluationList(minted, pki.root.cert).evaluations.map((e) => e.number)).toEqual([19, 18, 17]);
    expect(codeOf(() => verifyTcbEvaluationList(minted, intelRoot))).toBe('TYPEA_TCB_SIGNING_CHAIN_INVALID');
  });
});

describe('the evaluation in force at T, on the real list', () => {
  const lists = [verifyTcbEvaluationList(real, intelRoot)];
  const decide = (t: string, policy: TcbUpdatePolicy) => {
    const r = evaluationInForce(lists, at(t), policy);
    return 'number' in r ? r.number : r.undecidable;
  };

  it('update=early: from each recovery event date', () => {
    expect(decide('2025-06-01T00:00:00Z', 'early')).toBe(19);
    expect(decide('2025-05-13T00:00:00Z', 'early')).toBe(19);
    expect(decide('2025-05-12T23:59:59Z', 'early')).toBe(18);
    expect(decide('2024-06-15T00:00:00Z', 'early')).toBe(17);
  });

  it('update=standard: 12 calendar months after each recovery event (17 on 2025-06-02, as the PCS served it)', () => {
    expect(decide('2025-06-02T02:43:30Z', 'standard')).toBe(17);
    expect(decide('2025-11-12T00:00:00Z', 'standard')).toBe(18);
    expect(decide('2025-11-11T23:59:59Z', 'standard')).toBe(17);
    expect(decide('2026-01-01T00:00:00Z', 'standard')).toBe(18);
  });

  it('never a guess: before the oldest listed evaluation, or later than the list can tell', () => {
    expect(decide('2024-01-01T00:00:00Z', 'early')).toMatch(/no evaluation at hand was in force at 2024-01-01T00:00:00Z under update=early: the oldest at hand, 17, is in force from 2024-03-12T00:00:00Z; an older signed list is needed/);
    expect(decide('2024-06-15T00:00:00Z', 'standard')).toMatch(/the oldest at hand, 17, is in force from 2025-03-12T00:00:00Z/);
    // Two months after the list: an evaluation published since would be in force under early.
    expect(decide('2025-08-01T00:00:00Z', 'early')).toMatch(/the newest signed list at hand was issued 2025-06-02T02:43:30Z: an evaluation after 19 .* a list issued at or after 2025-08-01T00:00:00Z is needed/);
    // Under standard, 2026-06-10 needs a list issued after 2025-06-10: evaluation 20 may have started by then.
    expect(decide('2026-06-10T00:00:00Z', 'standard')).toMatch(/a list issued at or after 2025-06-10T00:00:00Z is needed/);
    expect(evaluationInForce([], at('2025-01-01T00:00:00Z'), 'early')).toEqual({ undecidable: 'no signed list of TCB evaluation data numbers is at hand' });
  });

  it('a gap in the numbers of the lists at hand is undecidable where the missing one may apply', () => {
    const gap: TcbEvaluationList = { ...lists[0]!, evaluations: lists[0]!.evaluations.filter((e) => e.number !== 18) };
    expect(evaluationInForce([gap], at('2025-01-01T00:00:00Z'), 'early')).toEqual({
      undecidable: 'evaluation 18 is in no signed list at hand (the lists jump from 17 to 19): it may have been in force at 2025-01-01T00:00:00Z',
    });
    expect(evaluationInForce([gap], at('2025-06-01T00:00:00Z'), 'early')).toMatchObject({ number: 19 });
  });

  it('lists that disagree on an evaluation are undecidable', () => {
    const other: TcbEvaluationList = { ...lists[0]!, evaluations: lists[0]!.evaluations.map((e) => (e.number === 18 ? { ...e, tcbDate: e.tcbDate + 1 } : e)) };
    expect(evaluationInForce([lists[0]!, other], at('2025-01-01T00:00:00Z'), 'early')).toEqual({ undecidable: 'two signed lists disagree on the dates of evaluation 18' });
  });
});

describe('the rule as a property over minted evaluations', () => {
  const DAY = 86_400_000;
  /** A sequence of consecutive evaluations from `first`, recovery dates increasing by the gaps (days). */
  const sequence = fc.record({ first: fc.integer({ min: 1, max: 40 }), start: fc.integer({ min: 0, max: 3000 }), gaps: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }) }).map(({ first, start, gaps }) => {
    let d = Date.UTC(2018, 0, 1) + start * DAY;
    return gaps.map((g, i): TcbEvaluation => {
      d += g * DAY;
      return { number: first + i, recoveryEventDate: d, tcbDate: d + DAY };
    });
  });
  /** The truth on the whole sequence: the highest evaluation in force at t (undefined: none of them). */
  const truth = (all: readonly TcbEvaluation[], t: number, policy: TcbUpdatePolicy) => all.filter((e) => inForceFrom(e, policy) <= t).at(-1)?.number;

  it('a decided evaluation is the true one; with every evaluation listed in a list issued after T it is always decided', () => {
    fc.assert(
      fc.property(
        sequence,
        fc.array(fc.record({ from: fc.nat(), length: fc.integer({ min: 1, max: 12 }), lateDays: fc.integer({ min: 0, max: 900 }) }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -200, max: 5000 }),
        fc.constantFrom(...TCB_UPDATE_POLICIES),
        (all, cuts, tDays, policy) => {
          // Lists cut from the sequence, each issued some days after its newest entry's recovery.
          const lists = cuts.map(({ from, length, lateDays }): TcbEvaluationList => {
            const i = from % all.length;
            const evaluations = all.slice(i, i + length).reverse();
            const issueDate = evaluations[0]!.recoveryEventDate + lateDays * DAY;
            // An honest list holds every evaluation started by its issueDate (from its oldest on).
            const held = all.slice(i).filter((e) => e.recoveryEventDate <= issueDate).reverse();
            return { id: 'SGX', issueDate, nextUpdate: issueDate + 30 * DAY, evaluations: held.length > 0 ? held : evaluations };
          });
          const t = all[0]!.recoveryEventDate + tDays * DAY;
          const r = evaluationInForce(lists, t, policy);
          if ('number' in r) expect(r.number).toBe(truth(all, t, policy));
          const complete: TcbEvaluationList = { id: 'SGX', issueDate: t + DAY, nextUpdate: t + 31 * DAY, evaluations: [...all].reverse() };
          const full = evaluationInForce([complete], t, policy);
          const want = truth(all, t, policy);
          if (want === undefined) expect('undecidable' in full).toBe(true);
          else expect(full).toMatchObject({ number: want });
        },
      ),
      { numRuns: 2000, seed: 49 },
    );
  });
});
