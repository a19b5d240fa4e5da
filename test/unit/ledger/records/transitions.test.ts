/**
 * Every oracle write accounted for: what each transition of a transaction is, by its function's role
 * in the program registry, on transactions shaped as a ledger node serves them (confirmed
 * transactions, public inputs in order, Leo values pretty-printed, a called program's transition
 * before its caller's, rejected executions kept aside).
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PROGRAMS, PROGRAMS, ProgramRegistry, type FunctionRole } from '../../../../src/ledger/programs.js';
import { itemsOfTransaction, programsToFollow, updateShapedInputs, type LedgerItem } from '../../../../src/ledger/records/transitions.js';
import { formatChunkedStruct } from '../../../../src/aleo/struct.js';
import { formatUniqueId, formatPcrStruct } from '../../../../src/aleo/ids.js';
import { LedgerChain, t, type TransitionSpec } from '../../../support/ledger-chain.js';
import { readVectorJson } from '../../../support/paths.js';
import { defaultPcrs } from '../../../support/typeb-pki.js';

const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const USER_DATA_8: string = examples.sgx.request.userData;
const REPORT: string = examples.sgx.request.report;
const USER_DATA_10 = formatChunkedStruct(new Uint8Array(10 * 512).fill(7), 10);
const UNIQUE_ID = new Uint8Array(32).fill(0x5a);
const SIG = 'sign1qyqsqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq';
const ADDR = 'aleo1urxgwaz5yqf5u7ajlc52lxcq7a3u62tpk4m5ryl5e8xplz0mxy9sd6thfe';
const ATTESTED = '{ data: 123u128, attestation_timestamp: 1725008028u128 }';

let heights = 100;
/** One transaction as a node serves it in a block (a confirmed transaction). */
function served(transitions: TransitionSpec[], opts: { rejected?: boolean } = {}): { tx: unknown; ids: string[] } {
  const chain = new LedgerChain(1, 1000);
  const h = heights++;
  const { transitionIds } = chain.add(h, transitions, opts);
  const block = chain.block(h) as { transactions: unknown[] };
  return { tx: block.transactions[0], ids: transitionIds };
}

const ALL = PROGRAMS.ids;
const items = (transitions: TransitionSpec[], programs: readonly string[] = ALL, registry?: ProgramRegistry): LedgerItem[] =>
  itemsOfTransaction(served(transitions).tx, programs, undefined, registry);

/** The inputs a transition of this role takes, in order, as the programs' sources declare them. */
function inputsFor(role: FunctionRole, program: string): string[] {
  const tenChunks = PROGRAMS.program(program)!.eras.includes(4);
  switch (role.role) {
    case 'update': {
      const inputs = [tenChunks ? USER_DATA_10 : USER_DATA_8, REPORT, SIG, ADDR];
      return role.kind === 'typeB' ? [...inputs, ...Array(4).fill('{ block_index: 8u8, shift_a: 0u8, shift_b: 0u8, mask_a: 0u128, mask_b: 0u128 }')] : inputs;
    }
    case 'measurement':
      return [role.sets === 'uniqueId' ? formatUniqueId(UNIQUE_ID) : formatPcrStruct(defaultPcrs().slice(0, 3))];
    case 'unattested':
      return typeof role.mapping === 'string' ? ['77u128', ATTESTED] : ['true', '77u128', ATTESTED];
    default:
      return ['1u8'];
  }
}

describe('the program registry follows the programs\' sources', () => {
  it('knows every program of every era, with the data and council programs of era 4', () => {
    expect(PROGRAMS.ids).toEqual([
      'official_oracle.aleo', 'official_oracle_v2.aleo', 'vlink_oracle_v0001.aleo', 'vlink_oracle_v0002.aleo', 'vlink_oracle_v2.aleo', 'veru_oracle_v2.aleo',
      'veru_oracle_interface_v3.aleo', 'veru_oracle_data_v3.aleo', 'veru_oracle_interface_v5.aleo', 'veru_oracle_data_v5.aleo', 'veru_oracle_council_imp_v5.aleo',
    ]);
  });

  it('era 4: the unique ID is set on the data program (directly or by the council), never on the interface', () => {
    expect(PROGRAMS.roleOf('veru_oracle_data_v5.aleo', 'set_unique_id')).toEqual({ role: 'measurement', sets: 'uniqueId', input: 0 });
    expect(PROGRAMS.roleOf('veru_oracle_interface_v5.aleo', 'set_unique_id')).toBeUndefined();
    expect(PROGRAMS.roleOf('veru_oracle_council_imp_v5.aleo', 'tb_set_unique_id')).toEqual({ role: 'ignored' });
    expect(PROGRAMS.measurementLocation('veru_oracle_interface_v5')).toEqual({ program: 'veru_oracle_data_v5.aleo', measurements: ['uniqueId'] });
    expect(PROGRAMS.measurementLocation('veru_oracle_interface_v3')).toEqual({ program: 'veru_oracle_data_v3.aleo', measurements: ['uniqueId', 'pcrs'] });
  });

  it("the data program's one-chunk write is not an update; the mainnet interface v3 takes the gateway's functions", () => {
    expect(PROGRAMS.roleOf('veru_oracle_data_v5.aleo', 'set_single_data_sgx')).toEqual({ role: 'callee', caller: 'veru_oracle_interface_v5.aleo' });
    for (const f of ['set_single_data_sgx', 'set_five_data_sgx', 'set_data_sgx']) expect(PROGRAMS.roleOf('veru_oracle_interface_v3.aleo', f)).toMatchObject({ role: 'update', kind: 'typeA' });
    expect(PROGRAMS.roleOf('official_oracle.aleo', 'set_data')).toMatchObject({ role: 'update', kind: 'typeA' });
  });

  it('owner overwrites of stored data are unattested writes', () => {
    for (const [p, f] of [['vlink_oracle_v0001.aleo', 'update_oracle_data'], ['vlink_oracle_v0001.aleo', 'update_historic_data'], ['veru_oracle_v2.aleo', 'update_historic_data'], ['veru_oracle_data_v5.aleo', 'update_historic_data'], ['veru_oracle_data_v3.aleo', 'update_historic_data']] as const) {
      expect(PROGRAMS.roleOf(p, f)?.role, `${p}/${f}`).toBe('unattested');
    }
  });

  it('naming a program follows its related programs; an unknown one is a usage error', () => {
    expect(programsToFollow(['veru_oracle_interface_v5'], 'x')).toEqual(['veru_oracle_interface_v5.aleo', 'veru_oracle_data_v5.aleo', 'veru_oracle_council_imp_v5.aleo']);
    expect(programsToFollow(['official_oracle'], 'x')).toEqual(['official_oracle.aleo']);
    expect(() => programsToFollow(['nope'], 'reverify --program')).toThrow(/reverify --program: unknown oracle program nope\.aleo/);
  });
});

describe('every function of every program, in a transaction as a node serves it', () => {
  for (const p of BUILT_IN_PROGRAMS) {
    for (const [fn, role] of Object.entries(p.functions)) {
      it(`${p.id}/${fn}: ${role.role}`, () => {
        const inputs = inputsFor(role, p.id);
        const got = items([t.other(p.id, fn, inputs)]);
        if (role.role === 'update') {
          expect(got).toHaveLength(1);
          const u = got[0]!;
          expect(u.type).toBe('update');
          if (u.type !== 'update') return;
          expect(u.base).toMatchObject({ program: p.id, function: fn });
          expect(u.base.unrecognized).toBeUndefined();
          expect(u.report.replace(/\s+/g, '')).toBe(inputs[role.report]!.replace(/\s+/g, ''));
          expect(u.userData.replace(/\s+/g, '')).toBe(inputs[role.userData]!.replace(/\s+/g, ''));
        } else if (role.role === 'measurement') {
          expect(got).toEqual([{ type: 'owner', record: expect.objectContaining({ kind: 'measurement', program: p.id, function: fn }) }]);
          const rec = (got[0] as { record: { measurement?: Record<string, unknown>; errorCode?: string } }).record;
          expect(rec.errorCode).toBeUndefined();
          expect(Object.keys(rec.measurement!)).toEqual([role.sets]);
        } else if (role.role === 'unattested') {
          expect(got).toHaveLength(1);
          expect(got[0]).toMatchObject({ type: 'unattested', record: { kind: 'unattested', outcome: 'unattested', written: { key: '77u128', value: ATTESTED } } });
          expect((got[0] as { record: { written: { mapping: string } } }).record.written.mapping).toMatch(/^(sgx|nitro)_attested_data$/);
        } else {
          // ignored, or a callee whose caller is not in the transaction and whose inputs are no update
          expect(got).toEqual([]);
        }
      });
    }
  }
});

describe('wrapped calls, councils, rejected executions', () => {
  it('an interface update and its data-program callee (callee first) give one update', () => {
    const got = items([
      t.other('veru_oracle_data_v5.aleo', 'set_single_data_sgx', ['{ f0: 1u128 }']),
      t.other('veru_oracle_interface_v5.aleo', 'set_single_data_sgx', [USER_DATA_10, REPORT, SIG, ADDR]),
    ]);
    expect(got.map((i) => [i.type, i.type === 'update' ? i.base.function : ''])).toEqual([['update', 'set_single_data_sgx']]);
    expect(got[0]!.type === 'update' && got[0]!.base.program).toBe('veru_oracle_interface_v5.aleo');
  });

  it("interface v3's callee carrying the structs is accounted for by its caller", () => {
    const got = items([
      t.other('veru_oracle_data_v3.aleo', 'set_timestampped_data', [USER_DATA_10, REPORT, SIG, ADDR]),
      t.other('veru_oracle_data_v3.aleo', 'set_request_hash_data', ['[1u128]', '[]']),
      t.other('veru_oracle_interface_v3.aleo', 'set_data_sgx', [USER_DATA_10, REPORT, SIG, ADDR]),
    ]);
    expect(got).toHaveLength(1);
    expect(got[0]!.type === 'update' && got[0]!.base.program).toBe('veru_oracle_interface_v3.aleo');
  });

  it('a callee with update inputs but without its caller is never dropped: an unrecognized update', () => {
    const got = items([t.other('veru_oracle_data_v3.aleo', 'set_timestampped_data', [USER_DATA_10, REPORT, SIG, ADDR])]);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ type: 'update', base: { program: 'veru_oracle_data_v3.aleo', unrecognized: true } });
  });

  it("the council's tb_set_unique_id: the measurement comes from the data program's transition (its callee, first)", () => {
    const got = items([
      t.other('veru_oracle_data_v5.aleo', 'set_unique_id', [formatUniqueId(UNIQUE_ID)]),
      t.other('veru_oracle_council_imp_v5.aleo', 'tb_set_unique_id', ['7u32', formatUniqueId(UNIQUE_ID), `[${Array(5).fill(ADDR).join(', ')}]`]),
    ]);
    expect(got).toEqual([{ type: 'owner', record: expect.objectContaining({ program: 'veru_oracle_data_v5.aleo', function: 'set_unique_id', measurement: { uniqueId: '5a'.repeat(32) } }) }]);
  });

  it('a rejected execution writes nothing', () => {
    expect(itemsOfTransaction(served([t.other('official_oracle.aleo', 'set_data_sgx', [USER_DATA_8, REPORT, SIG, ADDR])], { rejected: true }).tx, ALL)).toEqual([]);
  });

  it('an update whose structs are not public is recorded malformed, with the reason', () => {
    const { tx } = served([t.setDataSgx('official_oracle.aleo', USER_DATA_8, REPORT)]);
    const inputs = (tx as any).transaction.execution.transitions[0].inputs;
    inputs[1] = { type: 'private', id: inputs[1].id, value: 'ciphertext1qq' };
    const got = itemsOfTransaction(tx, ALL);
    expect(got).toEqual([{ type: 'update-malformed', record: expect.objectContaining({ errorCode: 'LEDGER_TRANSITION_MALFORMED', outcome: 'invalid', errorString: expect.stringContaining('inputs 0 and 1 must be public') }) }]);
  });

  it('an overwrite whose mapping flag is not a bool is recorded with the reason', () => {
    const got = items([t.other('veru_oracle_v2.aleo', 'update_historic_data', ['1u8', '77u128', ATTESTED])]);
    expect(got).toEqual([{ type: 'unattested', record: expect.objectContaining({ outcome: 'unattested', errorCode: 'LEDGER_TRANSITION_MALFORMED' }) }]);
  });
});

describe('never silent: transitions the registry does not name', () => {
  it('an unknown program whose inputs hold a userData and a report struct: an unrecognized update', () => {
    for (const ud of [USER_DATA_8, USER_DATA_10]) {
      const got = items([t.other('other_oracle.aleo', 'push', ['5u8', ud, REPORT, SIG])]);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ type: 'update', base: { program: 'other_oracle.aleo', function: 'push', unrecognized: true } });
    }
  });

  it('an unknown function of a followed program with update inputs: an unrecognized update', () => {
    const got = items([t.other('veru_oracle_interface_v5.aleo', 'set_ten_data_sgx', [USER_DATA_10, REPORT, SIG, ADDR])]);
    expect(got[0]).toMatchObject({ type: 'update', base: { program: 'veru_oracle_interface_v5.aleo', function: 'set_ten_data_sgx', unrecognized: true } });
  });

  it('nothing of update shape: nothing recorded (transfers, admin calls, a report alone)', () => {
    expect(items([t.transfer(), t.other('other.aleo', 'f', ['1u8', REPORT]), t.other('other.aleo', 'g', [REPORT, USER_DATA_8])])).toEqual([]);
    expect(updateShapedInputs([{ type: 'public', value: USER_DATA_8 }, { type: 'public', value: REPORT }])).toEqual({ userData: 0, report: 1 });
  });

  it('a known program left out of the followed set is the caller\'s choice, not unrecognized', () => {
    expect(items([t.setDataSgx('veru_oracle_v2.aleo', USER_DATA_8, REPORT)], ['official_oracle.aleo'])).toEqual([]);
  });

  it('a program added by configuration is followed by its roles', () => {
    const registry = new ProgramRegistry([
      { id: 'my_oracle.aleo', network: 'testnet', eras: [4], functions: { post: { role: 'update', kind: 'typeA', userData: 1, report: 2 } }, mappingProgram: 'my_oracle.aleo', measurements: ['uniqueId'], related: [], source: 'config' },
    ]);
    const got = items([t.other('my_oracle.aleo', 'post', ['1u8', USER_DATA_10, REPORT])], registry.ids, registry);
    expect(got[0]).toMatchObject({ type: 'update', base: { program: 'my_oracle.aleo', function: 'post' } });
    expect((got[0] as { base: { unrecognized?: true } }).base.unrecognized).toBeUndefined();
  });
});
