/** The `watch` config key and the programs the watcher follows. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.js';
import { followedPrograms } from '../../../src/server/ledgerFeature.js';
import { KNOWN_PROGRAM_IDS } from '../../../src/ledger/programs.js';

const base = { port: 0, liveCheck: { skip: true, apiBaseUrl: 'http://127.0.0.1:1/v1/mainnet' } };
const problems = (raw: Record<string, unknown>) => {
  try {
    resolveConfig({ ...base, ...raw }, '/etc/verifier');
  } catch (e) {
    return (e as Error).message.split('\n');
  }
  return [];
};

describe('config watch', () => {
  it('applies defaults and resolves the database against the config directory', () => {
    const c = resolveConfig({ ...base, watch: { enabled: true, database: 'data/ledger.db' } }, '/etc/verifier');
    expect(c.watch).toEqual({ enabled: true, database: '/etc/verifier/data/ledger.db', fromHeight: 0, pollIntervalMs: 10000, blockSource: 'auto', rps: 5, retryIntervalMs: 300000, leaseTtlMs: 30000, mappingKeysPerPoll: 20, completeness: true, completenessIntervalMs: 600000, completenessWindowSeconds: 3600, completenessMaxRescans: 20, proveInclusion: false });
    expect(resolveConfig({ ...base, watch: { enabled: false } }, '/x').watch).toBeUndefined();
    expect(resolveConfig(base, '/x').watch).toBeUndefined();
  });

  it('names each invalid value', () => {
    expect(problems({ watch: { enabled: true } })).toEqual(['config: watch.database = (absent): missing required key']);
    expect(problems({ watch: { enabled: true, database: 'x.db', batchBlocks: 161, fromHeight: -1, every: 1, retryIntervalMs: 50 } }).sort()).toEqual([
      'config: watch.batchBlocks = 161: expected a number ≤ 160',
      'config: watch.every = 1: unknown key (not part of the configuration schema; check its spelling)',
      'config: watch.fromHeight = -1: expected a number ≥ 0',
      'config: watch.retryIntervalMs = 50: expected a number ≥ 100',
    ]);
    expect(problems({ watch: { enabled: true, database: 'x.db', completenessIntervalMs: 999 } })).toEqual(['config: watch.completenessIntervalMs = 999: expected a number ≥ 1000']);
    expect(problems({ watch: { enabled: true, database: 'x.db', completenessIntervalMs: 86_400_001 } })).toEqual(['config: watch.completenessIntervalMs = 86400001: expected a number ≤ 86400000']);
    expect(problems({ watch: { enabled: true, database: 'x.db', completenessIntervalMs: 1.5e3 + 0.5 } })).toHaveLength(1);
    expect(resolveConfig({ ...base, watch: { enabled: true, database: 'x.db', completenessIntervalMs: 1000 } }, '/x').watch?.completenessIntervalMs).toBe(1000);
    // watch.confirmWith confirms the proofs of watch.proveInclusion: alone it is a mistake, named; no credentials in it.
    expect(problems({ watch: { enabled: true, database: 'x.db', confirmWith: 'https://other.example/v1/mainnet' } })).toEqual([
      'config: watch.confirmWith = "https://other.example/v1/mainnet": it confirms the block hashes of inclusion proofs; set watch.proveInclusion to true (or remove it)',
    ]);
    expect(problems({ watch: { enabled: true, database: 'x.db', proveInclusion: true, confirmWith: 'https://u:secret@other.example/v1/mainnet' } })).toEqual([
      'config: watch.confirmWith = "https://other.example/v1/mainnet" (credentials and query not shown): a URL must not hold credentials (user:password@); the confirming API is read without credentials',
    ]);
    expect(problems({ watch: { enabled: true, database: 'x.db', proveInclusion: true, confirmWith: 'ftp://other.example' } })).toHaveLength(1);
    expect(resolveConfig({ ...base, watch: { enabled: true, database: 'x.db', proveInclusion: true, confirmWith: 'https://other.example/v1/mainnet' } }, '/x').watch).toMatchObject({ proveInclusion: true, confirmWith: 'https://other.example/v1/mainnet' });
    expect(problems({ liveCheck: { skip: true }, watch: { enabled: true, database: 'x.db' } })).toEqual([
      'config: liveCheck.apiBaseUrl = (absent): the ledger watcher (watch.enabled) follows this ledger node; set it',
    ]);
  });

  it('follows ledgerPrograms (else every known program) plus liveCheck.contractName when it is a known program', () => {
    const c = (raw: Record<string, unknown>) => resolveConfig({ ...base, ...raw }, '/x');
    expect(followedPrograms(c({}))).toEqual([...KNOWN_PROGRAM_IDS]);
    expect(followedPrograms(c({ ledgerPrograms: ['official_oracle.aleo'], liveCheck: { skip: true, contractName: 'veru_oracle_v2' } }))).toEqual(['official_oracle.aleo', 'veru_oracle_v2.aleo']);
    expect(followedPrograms(c({ ledgerPrograms: ['official_oracle.aleo'], liveCheck: { skip: true, contractName: 'someone_else.aleo' } }))).toEqual(['official_oracle.aleo']);
  });
});
