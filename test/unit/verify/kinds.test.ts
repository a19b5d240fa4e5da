/** The report-kind registry: one vocabulary (typeA/typeB inside, sgx/nitro on the wire), detection by prefix. */
import { describe, expect, it } from 'vitest';
import { detectReportKind, findReportKind, kindOfWireName, NONCE_KIND_NAMES, REPORT_KINDS, REPORT_TYPES, WIRE_REPORT_TYPES, isReportType } from '../../../src/verify/kinds/index.js';
import { codeOf } from '../../support/errors.js';
import { loadTrustRoot } from '../../../src/attestation/trustRoots.js';
import { DEFAULT_TRUST_ROOTS } from '../../../src/config/defaultTrustRoots.js';
import { configSchema } from '../../../src/config/schema.js';

const withPrefix = (prefix: Uint8Array) => {
  const b = new Uint8Array(64);
  b.set(prefix);
  return b;
};

describe('report kinds', () => {
  it('names every kind once, inside and on the wire', () => {
    expect(REPORT_TYPES).toEqual(['typeA', 'typeB']);
    expect(WIRE_REPORT_TYPES).toEqual(['sgx', 'nitro']);
    expect(new Set(REPORT_KINDS.map((k) => k.id)).size).toBe(REPORT_KINDS.length);
    expect(kindOfWireName('sgx')?.id).toBe('typeA');
    expect(kindOfWireName('nitro')?.id).toBe('typeB');
    expect(kindOfWireName('typeA')).toBeUndefined();
    expect(isReportType('typeB')).toBe(true);
    expect(isReportType('nitro')).toBe(false);
  });

  it('detects each kind by its prefix and only one kind needs collateral from the main thread', () => {
    for (const k of REPORT_KINDS) expect(detectReportKind(withPrefix(k.prefix)).id).toBe(k.id);
    expect(REPORT_KINDS.filter((k) => k.collateral !== undefined).map((k) => k.id)).toEqual(['typeA']);
    expect(NONCE_KIND_NAMES).toBe('typeB');
  });

  it('refuses other bytes with REPORT_UNKNOWN_KIND, naming the expected prefixes', () => {
    const junk = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    expect(findReportKind(junk)).toBeUndefined();
    expect(codeOf(() => detectReportKind(junk))).toBe('REPORT_UNKNOWN_KIND');
    expect(() => detectReportKind(junk)).toThrow(
      'report: unrecognised report kind (first bytes 0102030405060708); expected typeA (Open Enclave header 0100000002000000) or typeB (COSE_Sign1 prefix 8444a1013822a059)',
    );
    expect(findReportKind(new Uint8Array(3))).toBeUndefined();
  });

  it('bundles the trust anchor of each kind, pinned by the SHA-256 its kind declares', () => {
    for (const k of REPORT_KINDS) {
      expect(DEFAULT_TRUST_ROOTS[k.id].endsWith(`/trust/${k.bundledRoot.file}`)).toBe(true);
      expect(loadTrustRoot(k.id, DEFAULT_TRUST_ROOTS[k.id], { pinnedSha256: k.bundledRoot.sha256 }).fingerprint256).toBe(k.bundledRoot.sha256);
    }
    const [a, b] = REPORT_KINDS;
    expect(codeOf(() => loadTrustRoot(a.id, DEFAULT_TRUST_ROOTS[b.id], { pinnedSha256: a.bundledRoot.sha256 }))).toBe('CONFIG_BAD_TRUST_ROOT');
    expect(() => loadTrustRoot(a.id, DEFAULT_TRUST_ROOTS[b.id], { pinnedSha256: a.bundledRoot.sha256 })).toThrow(/the bundled root was modified/);
  });

  it('gives each kind a target of its own: config key, liveCheck mapping, /info key, ledger name, build marker', () => {
    const distinct = (f: (k: (typeof REPORT_KINDS)[number]) => string) => expect(new Set(REPORT_KINDS.map(f)).size).toBe(REPORT_KINDS.length);
    distinct((k) => k.target.configKey);
    distinct((k) => k.target.ledger.mappingKey);
    distinct((k) => k.target.ledger.defaultMapping);
    distinct((k) => k.target.info.key);
    distinct((k) => k.target.ledger.name);
    distinct((k) => k.target.buildOutput.marker);
    expect(REPORT_KINDS.map((k) => [k.target.configKey, k.target.ledger.mappingKey, k.target.ledger.defaultMapping, k.target.ledger.name])).toEqual([
      ['uniqueIdTarget', 'uniqueIdMapping', 'sgx_unique_id', 'uniqueId'],
      ['pcrValuesTarget', 'pcrValuesMapping', 'nitro_pcr_values', 'pcrs'],
    ]);
    const properties = configSchema.properties as Record<string, unknown>;
    for (const k of REPORT_KINDS) {
      expect(properties[k.target.configKey]).toBe(k.target.configSchema);
      expect(configSchema.properties.liveCheck.properties).toHaveProperty(k.target.ledger.mappingKey);
    }
  });
});
