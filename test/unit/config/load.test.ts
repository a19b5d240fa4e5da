import { describe, expect, it } from 'vitest';
import { configuredTargets, resolveConfig, type Config } from '../../../src/config/load.js';

/** Incomplete targets: the reproducible build must supply them. */
const needsReproducibleBuild = (c: Config): boolean => configuredTargets(c) === undefined;
import { DEFAULT_PCCS_URL } from '../../../src/config/schema.js';
import { DEFAULT_TRUST_ROOTS } from '../../../src/config/defaultTrustRoots.js';
import { readVectorJson } from '../../support/paths.js';

const t = readVectorJson<any>('production-targets.json');
const base = { port: 8080, liveCheck: { skip: true } };

function errorOf(input: unknown): { code: string; lines: string[] } {
  try {
    resolveConfig(input, '/etc/verifier');
  } catch (e: any) {
    return { code: e.code, lines: String(e.message).split('\n') };
  }
  throw new Error('expected the config to be rejected');
}

describe('config defaults', () => {
  it('applies every documented default', () => {
    const c = resolveConfig({ ...base, uniqueIdTarget: t.uniqueIdTarget, pcrValuesTarget: t.pcrValuesTarget }, '/etc/verifier');
    expect(c.pccsUrl).toBe(DEFAULT_PCCS_URL);
    expect(c.trustedRoots).toEqual(DEFAULT_TRUST_ROOTS);
    expect(c.acceptedTcbStatuses).toEqual(['UpToDate', 'SWHardeningNeeded']);
    expect(c.allowDebugEnclaves).toBe(false);
    expect(c.liveCheck).toEqual({ skip: true, uniqueIdMapping: 'sgx_unique_id', pcrValuesMapping: 'nitro_pcr_values', timeoutMs: 30000, apiKeyHeader: 'X-API-Key' });
    expect([c.headersTimeoutMs, c.requestTimeoutMs, c.shutdownGraceMs]).toEqual([10000, 10000, 20000]);
    expect(c.workers).toBeGreaterThanOrEqual(1);
    expect(c.reproducibleBuildScript).toBe('/etc/verifier/get-enclave-id.sh');
    expect(c.verificationTime).toBeUndefined();
    expect(c.tls).toBeUndefined();
    expect(needsReproducibleBuild(c)).toBe(false);
  });

  it('resolves relative paths against the config file directory', () => {
    const c = resolveConfig({ ...base, useTls: true, tlsKey: 'k.pem', tlsCert: '/abs/c.pem', trustedRoots: { typeB: 'roots/b.pem' } }, '/etc/verifier');
    expect(c.tls).toEqual({ keyFile: '/etc/verifier/k.pem', certFile: '/abs/c.pem' });
    expect(c.trustedRoots.typeB).toBe('/etc/verifier/roots/b.pem');
    expect(c.trustedRoots.typeA).toBe(DEFAULT_TRUST_ROOTS.typeA);
  });

  it('parses verificationTime', () => {
    const c = resolveConfig({ ...base, verificationTime: '2026-09-23T00:00:00Z' }, '/');
    expect(c.verificationTime).toBe(1790121600_000);
  });
});

describe('target normalisation', () => {
  it('accepts hex in any case and base64, normalising to the same bytes', () => {
    const hexUpper = resolveConfig({ ...base, uniqueIdTarget: t.uniqueIdTargetHex.toUpperCase() }, '/');
    const b64 = resolveConfig({ ...base, uniqueIdTarget: t.uniqueIdTarget }, '/');
    const b64url = resolveConfig({ ...base, uniqueIdTarget: t.uniqueIdTarget.replace(/\+/g, '-').replace(/\//g, '_') }, '/');
    const want = Buffer.from(t.uniqueIdTargetHex, 'hex');
    for (const c of [hexUpper, b64, b64url]) expect(Buffer.from(c.targets.typeA!)).toEqual(want);
    const pcrs = resolveConfig({ ...base, pcrValuesTarget: t.pcrValuesTargetHex.map((h: string, i: number) => (i === 1 ? t.pcrValuesTarget[1] : h.toUpperCase())) }, '/');
    expect(pcrs.targets.typeB!.map((b) => Buffer.from(b).toString('hex'))).toEqual(t.pcrValuesTargetHex);
  });

  it('rejects wrong lengths, non-hex, all-zero and debug targets naming key and value', () => {
    expect(errorOf({ ...base, uniqueIdTarget: 'abcd' }).lines).toEqual(['config: uniqueIdTarget = "abcd": expected 32 bytes as hex (64 hex digits) or base64']);
    expect(errorOf({ ...base, uniqueIdTarget: '00'.repeat(32) }).code).toBe('CONFIG_BAD_TARGET');
    expect(errorOf({ ...base, pcrValuesTarget: ['zz'] }).lines[0]).toMatch(/^config: pcrValuesTarget\[0\] = "zz": expected 48 bytes/);
    expect(errorOf({ ...base, pcrValuesTarget: ['00'.repeat(48), t.pcrValuesTargetHex[1], t.pcrValuesTargetHex[2]] }).lines[0]).toMatch(/debug enclave/);
    expect(errorOf({ ...base, pcrValuesTarget: [t.pcrValuesTargetHex[0].slice(2)] }).code).toBe('CONFIG_BAD_TARGET');
  });

  it('incomplete targets call for the reproducible build', () => {
    expect(needsReproducibleBuild(resolveConfig({ ...base, pcrValuesTarget: t.pcrValuesTarget }, '/'))).toBe(true);
    expect(needsReproducibleBuild(resolveConfig({ ...base, uniqueIdTarget: t.uniqueIdTarget, pcrValuesTarget: t.pcrValuesTarget.slice(0, 2) }, '/'))).toBe(true);
    expect(needsReproducibleBuild(resolveConfig({ ...base, uniqueIdTarget: '', pcrValuesTarget: t.pcrValuesTarget }, '/'))).toBe(true);
  });
});

describe('config validation errors', () => {
  it('one line per invalid value with key, value and expectation', () => {
    const e = errorOf({ port: 'x', liveCheck: { skip: false }, acceptedTcbStatus: [], useTls: true, allowDebugEnclaves: 'no', workers: -1 });
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.lines).toEqual(
      expect.arrayContaining([
        'config: port = "x": expected an integer',
        'config: acceptedTcbStatus = []: unknown key (not part of the configuration schema; check its spelling)',
        'config: tlsKey = (absent): missing required key',
        'config: tlsCert = (absent): missing required key',
        'config: liveCheck.apiBaseUrl = (absent): missing required key',
        'config: liveCheck.contractName = (absent): missing required key',
        'config: allowDebugEnclaves = "no": expected a boolean',
        'config: workers = -1: expected a number ≥ 0',
      ]),
    );
    expect(e.lines).toHaveLength(8);
  });

  it('reports unknown nested keys, bad enums, bad URLs and times', () => {
    expect(errorOf({ ...base, liveCheck: { skip: true, skipp: false } }).lines).toEqual(['config: liveCheck.skipp = false: unknown key (not part of the configuration schema; check its spelling)']);
    expect(errorOf({ ...base, acceptedTcbStatuses: ['UpToDate', 'Fine'] }).lines[0]).toMatch(/^config: acceptedTcbStatuses\.1 = "Fine": expected one of "UpToDate", /);
    expect(errorOf({ ...base, pccsUrl: 'ftp://x' }).lines[0]).toMatch(/^config: pccsUrl = "ftp:\/\/x": expected a value matching/);
    expect(errorOf({ ...base, verificationTime: 'yesterday' }).lines[0]).toBe('config: verificationTime = "yesterday": expected an ISO-8601 date-time such as 2026-09-23T00:00:00Z');
    expect(errorOf({ ...base, port: 70000 }).lines[0]).toBe('config: port = 70000: expected a number ≤ 65535');
    expect(errorOf({ liveCheck: { skip: true } }).lines[0]).toBe('config: port = (absent): missing required key');
    expect(errorOf({ ...base, acceptedTcbStatuses: [] }).lines[0]).toBe('config: acceptedTcbStatuses = []: expected at least 1 item(s)');
  });

  it('names the request timeouts and the shutdown grace when out of range or inconsistent', () => {
    expect(errorOf({ ...base, headersTimeoutMs: 20000 }).lines).toEqual(['config: headersTimeoutMs = 20000: expected a number ≤ requestTimeoutMs (10000): the headers are part of the request']);
    expect(errorOf({ ...base, requestTimeoutMs: 500, shutdownGraceMs: 'soon' }).lines.sort()).toEqual([
      'config: requestTimeoutMs = 500: expected a number ≥ 1000',
      'config: shutdownGraceMs = "soon": expected an integer',
    ]);
    expect(errorOf({ ...base, requestTimeoutMs: 30000 }).lines).toEqual(['config: shutdownGraceMs = 20000: expected a number > requestTimeoutMs (30000): a request still arriving at shutdown may take that long']);
    const c = resolveConfig({ ...base, headersTimeoutMs: 2000, requestTimeoutMs: 30000, shutdownGraceMs: 45000 }, '/');
    expect([c.headersTimeoutMs, c.requestTimeoutMs, c.shutdownGraceMs]).toEqual([2000, 30000, 45000]);
  });

  it('reports every invalid key at once: schema violations, targets and their codes', () => {
    const e = errorOf({ ...base, port: -1, workers: 'many', uniqueIdTarget: 'abcd', pcrValuesTarget: ['zz', t.pcrValuesTargetHex[1], 'yy'] });
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.lines).toEqual([
      'config: port = -1: expected a number ≥ 0',
      'config: workers = "many": expected an integer',
      'config: uniqueIdTarget = "abcd": expected 32 bytes as hex (64 hex digits) or base64',
      'config: pcrValuesTarget[0] = "zz": expected 48 bytes as hex (96 hex digits) or base64',
      'config: pcrValuesTarget[2] = "yy": expected 48 bytes as hex (96 hex digits) or base64',
    ]);
    const targetsOnly = errorOf({ ...base, uniqueIdTarget: '00'.repeat(32), pcrValuesTarget: [t.pcrValuesTargetHex[0], 'zz'] });
    expect(targetsOnly.code).toBe('CONFIG_BAD_TARGET');
    expect(targetsOnly.lines).toHaveLength(2);
    expect(targetsOnly.lines[0]).toMatch(/^config: uniqueIdTarget = .*not all zeros$/);
    expect(targetsOnly.lines[1]).toMatch(/^config: pcrValuesTarget\[1\] = "zz"/);
  });

  it('names JSON types with their article', () => {
    expect(errorOf({ ...base, pcrValuesTarget: 'x', trustedRoots: [], useTls: 1 }).lines).toEqual([
      'config: useTls = 1: expected a boolean',
      'config: pcrValuesTarget = "x": expected an array',
      'config: trustedRoots = []: expected an object',
    ]);
  });

  it('does not mutate its input', () => {
    const input = { ...base };
    resolveConfig(input, '/');
    expect(input).toEqual({ port: 8080, liveCheck: { skip: true } });
  });
});

describe('config acceptedAdvisories', () => {
  it('is absent unless set, kept as given, and refuses ids that are not INTEL-SA-NNNNN', () => {
    expect(resolveConfig(base, '/').acceptedAdvisories).toBeUndefined();
    expect(resolveConfig({ ...base, acceptedAdvisories: ['INTEL-SA-00615'] }, '/').acceptedAdvisories).toEqual(['INTEL-SA-00615']);
    expect(errorOf({ ...base, acceptedAdvisories: ['SA-00615'] }).lines[0]).toMatch(/^config: acceptedAdvisories\.0 = "SA-00615": expected a value matching/);
    expect(errorOf({ ...base, acceptedAdvisories: ['INTEL-SA-00615', 'INTEL-SA-00615'] }).lines[0]).toBe(
      'config: acceptedAdvisories = ["INTEL-SA-00615","INTEL-SA-00615"]: expected no duplicate items',
    );
  });
});

describe('config workerYoungGenerationMb', () => {
  it("caps each verification worker's young generation at 12 MiB unless set; refuses what V8 cannot take", () => {
    expect(resolveConfig(base, '/').workerYoungGenerationMb).toBe(12);
    expect(resolveConfig({ ...base, workerYoungGenerationMb: 48 }, '/').workerYoungGenerationMb).toBe(48);
    expect(errorOf({ ...base, workerYoungGenerationMb: 2 }).lines).toEqual(['config: workerYoungGenerationMb = 2: expected a number ≥ 3']);
    expect(errorOf({ ...base, workerYoungGenerationMb: 7.5 }).lines).toEqual(['config: workerYoungGenerationMb = 7.5: expected an integer']);
  });
});

describe('config ledgerPrograms', () => {
  it('is absent unless set and accepts only known oracle programs', () => {
    expect(resolveConfig(base, '/').ledgerPrograms).toBeUndefined();
    expect(resolveConfig({ ...base, ledgerPrograms: ['veru_oracle_v2.aleo'] }, '/').ledgerPrograms).toEqual(['veru_oracle_v2.aleo']);
    expect(errorOf({ ...base, ledgerPrograms: ['other_oracle.aleo'] }).lines[0]).toMatch(/^config: ledgerPrograms\.0 = "other_oracle.aleo": not a known oracle program \(known: official_oracle.aleo, /);
    expect(errorOf({ ...base, ledgerPrograms: [] }).lines[0]).toBe('config: ledgerPrograms = []: expected at least 1 item(s)');
  });
});
