/** The check trace: outcomes by the order the verifier reaches checks; the kinds' plans. */
import { describe, expect, it } from 'vitest';
import { BINDING_CHECK, CheckTrace, STRUCT_CHECKS } from '../../../src/verify/checks.js';
import { REPORT_KINDS } from '../../../src/verify/kinds/index.js';
import { TYPEA_COLLATERAL_CHECKS, TYPEA_QUOTE_CHECKS } from '../../../src/attestation/typeA/verify.js';
import { TYPEB_CHECKS } from '../../../src/attestation/typeB/verify.js';

describe('CheckTrace', () => {
  it('a begun check passes when the next begins; a failure skips the rest', () => {
    const t = new CheckTrace([...STRUCT_CHECKS, { id: 'a', title: 'A' }, { id: 'b', title: 'B' }]);
    t.record('struct.parse');
    t.record('userData.decode', 'STRUCT_CHUNK_COUNT');
    t.begin('report.kind');
    t.begin('a');
    t.fail('TYPEB_PCR_MISMATCH');
    expect(t.result()).toEqual([
      { id: 'struct.parse', title: STRUCT_CHECKS[0]!.title, status: 'passed' },
      { id: 'userData.decode', title: STRUCT_CHECKS[1]!.title, status: 'failed', code: 'STRUCT_CHUNK_COUNT' },
      { id: 'report.kind', title: STRUCT_CHECKS[2]!.title, status: 'passed' },
      { id: 'a', title: 'A', status: 'failed', code: 'TYPEB_PCR_MISMATCH' },
      { id: 'b', title: 'B', status: 'skipped' },
    ]);
  });

  it('refuses a check that is not in the plan', () => {
    expect(() => new CheckTrace().begin('nope')).toThrow(/unknown check nope/);
  });

  it('extend appends the kind’s checks after the common ones', () => {
    const t = new CheckTrace();
    t.extend([{ id: 'k', title: 'K' }]);
    t.begin('k');
    t.pass();
    expect(t.result().map((c) => [c.id, c.status])).toEqual([
      ['struct.parse', 'skipped'],
      ['userData.decode', 'skipped'],
      ['report.kind', 'skipped'],
      ['k', 'passed'],
    ]);
  });
});

describe('kind plans', () => {
  it('every kind starts with its parse, holds its attestation steps in order and ends with the binding; ids are unique', () => {
    for (const k of REPORT_KINDS) {
      const ids = k.checks.map((c) => c.id);
      expect(ids[0]).toBe(`${k.id}.parse`);
      expect(ids.at(-1)).toBe(BINDING_CHECK.id);
      expect(new Set([...ids, ...STRUCT_CHECKS.map((c) => c.id)]).size).toBe(ids.length + STRUCT_CHECKS.length);
      const steps = (k.id === 'typeA' ? [...TYPEA_QUOTE_CHECKS, { id: 'typeA.collateral' }, ...TYPEA_COLLATERAL_CHECKS] : TYPEB_CHECKS).map((c) => c.id);
      const at = ids.indexOf(steps[0]!);
      expect(ids.slice(at, at + steps.length)).toEqual(steps);
    }
  });

  it('typeA: every collateral-free quote check runs before the collateral step, the ones that need collateral after it', () => {
    const ids = REPORT_KINDS.find((k) => k.id === 'typeA')!.checks.map((c) => c.id);
    const collateral = ids.indexOf('typeA.collateral');
    expect(ids.slice(0, collateral)).toEqual(['typeA.parse', ...TYPEA_QUOTE_CHECKS.map((c) => c.id)]);
    expect(ids.slice(collateral + 1, collateral + 1 + TYPEA_COLLATERAL_CHECKS.length)).toEqual(TYPEA_COLLATERAL_CHECKS.map((c) => c.id));
  });
});
