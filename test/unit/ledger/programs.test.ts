/** The registry of the oracle's ledger programs (every era). */
import { describe, expect, it } from 'vitest';
import { KNOWN_PROGRAM_IDS, measurementLocation, PROGRAMS, updateKindOf } from '../../../src/ledger/programs.js';

const oracleProgram = (id: string) => PROGRAMS.program(id);
/** What a measurement transition of the built-in programs sets (its role in the registry). */
const ownerKindOf = (program: string, fn: string) => {
  const r = PROGRAMS.roleOf(program, fn);
  return r?.role === 'measurement' ? r.sets : undefined;
};

describe('oracle program registry', () => {
  it('knows the programs and update transitions of every era', () => {
    expect(KNOWN_PROGRAM_IDS).toEqual([
      'official_oracle.aleo', 'official_oracle_v2.aleo', 'vlink_oracle_v0001.aleo', 'vlink_oracle_v0002.aleo', 'vlink_oracle_v2.aleo', 'veru_oracle_v2.aleo',
      'veru_oracle_interface_v3.aleo', 'veru_oracle_data_v3.aleo', 'veru_oracle_interface_v5.aleo', 'veru_oracle_data_v5.aleo', 'veru_oracle_council_imp_v5.aleo',
    ]);
    for (const p of ['official_oracle', 'vlink_oracle_v0001.aleo', 'veru_oracle_v2.aleo']) {
      expect([updateKindOf(p, 'set_data_sgx'), updateKindOf(p, 'set_data_nitro')]).toEqual(['typeA', 'typeB']);
      expect([ownerKindOf(p, 'set_unique_id'), ownerKindOf(p, 'set_pcr_values')]).toEqual(['uniqueId', 'pcrs']);
    }
    const i5 = 'veru_oracle_interface_v5.aleo';
    expect(['set_multiple_data_sgx', 'set_single_data_sgx', 'set_five_data_sgx'].map((f) => updateKindOf(i5, f))).toEqual(['typeA', 'typeA', 'typeA']);
    expect(updateKindOf(i5, 'set_data_sgx')).toBeUndefined();
    expect(ownerKindOf(i5, 'set_pcr_values')).toBeUndefined();
    expect(oracleProgram('veru_oracle_interface_v5')?.eras).toEqual([4]);
  });

  it('says where each program keeps its measurements', () => {
    expect(measurementLocation('veru_oracle_interface_v5')).toEqual({ program: 'veru_oracle_data_v5.aleo', measurements: ['uniqueId'] });
    expect(measurementLocation('official_oracle')).toEqual({ program: 'official_oracle.aleo', measurements: ['uniqueId', 'pcrs'] });
    expect(measurementLocation('my_oracle')).toEqual({ program: 'my_oracle.aleo', measurements: ['uniqueId', 'pcrs'] });
  });

  it('answers nothing for unknown programs, set_key, or names inherited from Object', () => {
    expect(updateKindOf('other_oracle.aleo', 'set_data_sgx')).toBeUndefined();
    expect(ownerKindOf('official_oracle.aleo', 'set_key')).toBeUndefined();
    for (const f of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(updateKindOf('official_oracle.aleo', f)).toBeUndefined();
      expect(ownerKindOf('official_oracle.aleo', f)).toBeUndefined();
    }
    expect(oracleProgram('constructor')).toBeUndefined();
  });
});
