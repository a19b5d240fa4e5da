/**
 * config.json `acceptedBuilds`: builds accepted beside the targets, one kind per entry with its
 * source; every problem names the entry; the policy accepts the target or any accepted build and
 * names them all when a report matches none.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.js';
import { policyOf } from '../../../src/compose.js';
import { acceptedMeasurements } from '../../../src/verify/policy.js';
import { checkUniqueId } from '../../../src/verify/kinds/typeA/policy.js';
import { checkPcrs } from '../../../src/verify/kinds/typeB/policy.js';
import { readVectorJson } from '../../support/paths.js';
import type { TargetValues } from '../../../src/verify/kinds/index.js';

const t = readVectorJson<any>('production-targets.json');
const base = { port: 8080, liveCheck: { skip: true }, uniqueIdTarget: t.uniqueIdTarget, pcrValuesTarget: t.pcrValuesTarget };
const otherId = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const otherPcrs = [
  'fcc4ced3f4bba7352e289a27fb8fb7358255d6b35abafdc8b4a398c418a44779a377979baa62fc78ef6d89aa6bc11af0',
  '0343b056cd8485ca7890ddd833476d78460aed2aa161548e4e26bedf321726696257d623e8805f3f605946b3d8b0c6aa',
  '55a296be86298ce7d58bf289bad529c70e0d50854b475990d4f8ead2bf02d6fb476e717cc80c057abf7cd0f21cdfc596',
];
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

function linesOf(input: unknown): string[] {
  try {
    resolveConfig(input, '/etc/verifier');
  } catch (e: any) {
    return String(e.message).split('\n');
  }
  throw new Error('expected the config to be rejected');
}

describe('config acceptedBuilds', () => {
  it('defaults to none; entries become measurements by kind, with their sources', () => {
    expect(resolveConfig(base, '/etc/verifier').acceptedBuilds).toEqual({});
    const c = resolveConfig({ ...base, acceptedBuilds: [{ source: 'ledger', pcrValuesTarget: otherPcrs }, { source: 'README', uniqueIdTarget: otherId }] }, '/etc/verifier');
    expect(c.acceptedBuilds.typeA).toEqual([{ value: bytes(otherId), source: 'README' }]);
    expect(c.acceptedBuilds.typeB).toEqual([{ value: otherPcrs.map(bytes), source: 'ledger' }]);
    const policy = policyOf(c, c.targets as TargetValues);
    expect(acceptedMeasurements(policy, 'typeA')).toEqual([bytes(t.uniqueIdTargetHex), bytes(otherId)]);
  });

  it('names the entry in every problem', () => {
    const lines = linesOf({
      ...base,
      acceptedBuilds: [
        { source: 'x', uniqueIdTarget: otherId, pcrValuesTarget: otherPcrs },
        { source: 'x' },
        { source: 'x', pcrValuesTarget: [otherPcrs[0], 'zz', otherPcrs[2]] },
        { pcrValuesTarget: otherPcrs },
        { source: 'x', uniqueIdTarget: '00'.repeat(32) },
        { source: 'x', pcrValuesTarget: otherPcrs.slice(0, 2) },
        { source: 'x', colour: 1, uniqueIdTarget: otherId },
        { source: '   ', uniqueIdTarget: otherId },
      ],
    });
    expect(lines.find((l) => l.startsWith('config: acceptedBuilds.0:'))).toMatch(/exactly one of uniqueIdTarget, pcrValuesTarget \(it names uniqueIdTarget and pcrValuesTarget\)/);
    expect(lines.find((l) => l.startsWith('config: acceptedBuilds.1:'))).toMatch(/it names none/);
    expect(lines.some((l) => l.startsWith('config: acceptedBuilds.2.pcrValuesTarget[1] = "zz"'))).toBe(true);
    expect(lines.some((l) => l.startsWith('config: acceptedBuilds.3') && l.includes('source'))).toBe(true);
    expect(lines.some((l) => l.startsWith('config: acceptedBuilds.4.uniqueIdTarget') && l.includes('all zeros'))).toBe(true);
    expect(lines.some((l) => l.startsWith('config: acceptedBuilds.5.pcrValuesTarget: expected a complete value (three pcrValuesTarget)'))).toBe(true);
    expect(lines.some((l) => l.startsWith('config: acceptedBuilds.6.colour'))).toBe(true);
    expect(lines).toContain('config: acceptedBuilds.7.source = "   ": expected where this measurement comes from');
  });
});

describe('policy: the target or an accepted build', () => {
  const target = bytes(t.uniqueIdTargetHex);
  it('typeA: accepts either, and a mismatch names the target and the accepted builds', () => {
    expect(() => checkUniqueId(bytes(otherId), [target, bytes(otherId)])).not.toThrow();
    expect(() => checkUniqueId(target, [target, bytes(otherId)])).not.toThrow();
    const stranger = bytes('11'.repeat(32));
    expect(() => checkUniqueId(stranger, [target])).toThrow(`unique ID does not match target: report has ${'11'.repeat(32)}, target is ${t.uniqueIdTargetHex}`);
    expect(() => checkUniqueId(stranger, [target, bytes(otherId)])).toThrow(`target is ${t.uniqueIdTargetHex}, nor any of the 1 other accepted builds (${otherId})`);
  });

  it('typeB: all three PCRs must come from one build', () => {
    const targetPcrs = t.pcrValuesTargetHex.map(bytes);
    const other = otherPcrs.map(bytes);
    const doc = (pcrs: Uint8Array[]) => new Map(pcrs.map((p, i) => [i, p] as const));
    expect(() => checkPcrs(doc(other), [targetPcrs, other])).not.toThrow();
    expect(() => checkPcrs(doc(targetPcrs), [targetPcrs, other])).not.toThrow();
    // PCR0 of one build with PCR2 of the other is no build.
    const mixed = [other[0]!, other[1]!, targetPcrs[2]!];
    expect(() => checkPcrs(doc(mixed), [targetPcrs, other])).toThrow(/PCR0 does not match target: .*, nor do PCR0–2 match any of the 1 other accepted builds \(PCR0 fcc4ced3/);
    expect(() => checkPcrs(doc(other), [targetPcrs])).toThrow(/^PCR0 does not match target/);
  });
});
