/**
 * `ledgerPrograms` adds a program without a release: its id and the role of each function, checked
 * by the config schema with key-named errors; the watcher, the lookups, /info and `reverify
 * --program` follow it.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.js';
import { followedPrograms, programRegistryOf } from '../../../src/server/ledgerFeature.js';
import { itemsOfTransaction, writesOfUpdate } from '../../../src/ledger/records/transitions.js';
import { buildInfoRecord } from '../../../src/server/info.js';
import { LedgerChain, t } from '../../support/ledger-chain.js';
import { readVectorJson } from '../../support/paths.js';

const base = {
  port: 0,
  uniqueIdTarget: '5a'.repeat(32),
  pcrValuesTarget: ['11'.repeat(48), '22'.repeat(48), '33'.repeat(48)],
  liveCheck: { skip: true, apiBaseUrl: 'http://127.0.0.1:9/v1/mainnet' },
};
const MY = {
  id: 'my_oracle_v7',
  functions: {
    post_sgx: { role: 'update', kind: 'typeA', userData: 1, report: 2 },
    set_enclave: { role: 'measurement', sets: 'uniqueId', input: 0 },
    overwrite: { role: 'unattested', mapping: 'sgx_attested_data', key: 0, value: 1 },
    set_key: { role: 'ignored' },
  },
  mappingProgram: 'my_oracle_data_v7.aleo',
  measurements: ['uniqueId'],
};
const config = (ledgerPrograms: unknown) => resolveConfig({ ...base, ledgerPrograms }, process.cwd());
const problems = (ledgerPrograms: unknown): string => {
  try {
    config(ledgerPrograms);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('ledgerPrograms in config.json', () => {
  it('defines a program with its functions\' roles, followed next to the named built-in ones', () => {
    const c = config(['official_oracle', MY]);
    expect(followedPrograms(c)).toEqual(['official_oracle.aleo', 'my_oracle_v7.aleo']);
    const r = programRegistryOf(c);
    expect(r.roleOf('my_oracle_v7.aleo', 'post_sgx')).toEqual({ role: 'update', kind: 'typeA', userData: 1, report: 2 });
    expect(r.measurementLocation('my_oracle_v7')).toEqual({ program: 'my_oracle_data_v7.aleo', measurements: ['uniqueId'] });
    // /info lists what is followed
    expect(buildInfoRecord(c.targets as never, null, 0, followedPrograms(c)).ledgerPrograms).toEqual(['official_oracle.aleo', 'my_oracle_v7.aleo']);
  });

  it('its updates are found by their roles, not as unrecognized', () => {
    const c = config([MY]);
    const ex = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json').sgx.request;
    const chain = new LedgerChain(1, 10);
    chain.add(5, [t.other('my_oracle_v7.aleo', 'post_sgx', ['3u8', ex.userData, ex.report]), t.other('my_oracle_v7.aleo', 'overwrite', ['5u128', '{ data: 1u128, attestation_timestamp: 2u128 }'])]);
    const tx = (chain.block(5) as { transactions: unknown[] }).transactions[0];
    const items = itemsOfTransaction(tx, followedPrograms(c), 5, programRegistryOf(c));
    expect(items.map((i) => i.type)).toEqual(['update', 'unattested']);
    expect(items[0]).toMatchObject({ base: { program: 'my_oracle_v7.aleo', function: 'post_sgx' } });
    expect((items[0] as { base: { unrecognized?: true } }).base.unrecognized).toBeUndefined();
  });

  it('its attestedData layout makes its writes tracked by the mapping cross-check, in the program it names', () => {
    const c = config([{ ...MY, attestedData: { mappings: { typeA: 'sgx_attested_data' }, key: 'userData', functions: { post_sgx: 1 } } }]);
    expect(programRegistryOf(c).program('my_oracle_v7.aleo')?.attestedData).toEqual({ program: 'my_oracle_data_v7.aleo', mappings: { typeA: 'sgx_attested_data' }, key: 'userData', functions: { post_sgx: 1 } });
    const ex = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json').sgx.request;
    const chain = new LedgerChain(1, 10);
    chain.add(5, [t.other('my_oracle_v7.aleo', 'post_sgx', ['3u8', ex.userData, ex.report])]);
    const tx = (chain.block(5) as { transactions: unknown[] }).transactions[0];
    const [item] = itemsOfTransaction(tx, followedPrograms(c), 5, programRegistryOf(c));
    const writes = item?.type === 'update' ? writesOfUpdate(item) : [];
    expect(writes.map((w) => [w.program, w.mapping, w.role])).toEqual([
      ['my_oracle_data_v7.aleo', 'sgx_attested_data', 'latest'],
      ['my_oracle_data_v7.aleo', 'sgx_attested_data', 'historic'],
    ]);
    // Without the layout its keys are not tracked.
    const [plain] = itemsOfTransaction(tx, followedPrograms(config([MY])), 5, programRegistryOf(config([MY])));
    expect(plain?.type === 'update' && plain.writeSpec).toBeUndefined();
    expect(plain?.type === 'update' && writesOfUpdate(plain)).toEqual([]);
  });

  it('refuses an attestedData layout that names no update function or lacks its kind\'s mapping', () => {
    expect(problems([{ ...MY, attestedData: { mappings: { typeA: 'sgx_attested_data' }, key: 'chunk', functions: { set_enclave: 1 } } }])).toMatch(
      /ledgerPrograms\.0\.attestedData\.functions\.set_enclave: not an update function of my_oracle_v7\.aleo \(its functions name it with role measurement\)/,
    );
    expect(problems([{ ...MY, attestedData: { mappings: { typeB: 'nitro_attested_data' }, key: 'chunk', functions: { post_sgx: 1 } } }])).toMatch(/ledgerPrograms\.0\.attestedData\.mappings: no mapping for typeA/);
    expect(problems([{ ...MY, attestedData: { mappings: {}, key: 'chunk', functions: { post_sgx: 1 } } }])).toMatch(/ledgerPrograms/);
  });

  it('refuses what is wrong, naming the key', () => {
    expect(problems(['no_such_oracle'])).toMatch(/ledgerPrograms\.0 = "no_such_oracle": not a known oracle program/);
    expect(problems([{ ...MY, functions: { post_sgx: { role: 'update', kind: 'typeC', userData: 1, report: 2 } } }])).toMatch(/ledgerPrograms/);
    expect(problems([{ ...MY, functions: { post_sgx: { role: 'update', userData: 1 } } }])).toMatch(/ledgerPrograms/);
    expect(problems([{ ...MY, functions: { x: { role: 'teleport' } } }])).toMatch(/ledgerPrograms/);
    expect(problems([{ id: 'Bad-Name', functions: { x: { role: 'ignored' } } }])).toMatch(/ledgerPrograms/);
    expect(problems(['official_oracle', 'official_oracle.aleo'])).toMatch(/ledgerPrograms\.1 = "official_oracle.aleo": named twice/);
    expect(problems([])).toMatch(/ledgerPrograms/);
  });
});
