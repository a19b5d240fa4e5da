/**
 * reverify over the ledger-node simulator with updates of every era's oracle program (from the
 * program registry, src/ledger/programs.ts): official_oracle.aleo (era 1), vlink_oracle_v0001.aleo
 * (era 2), veru_oracle_v2.aleo (eras 2–3) and veru_oracle_interface_v5.aleo (era 4, 10-chunk
 * userData), some called from another program's transition, next to programs that are not
 * followed. Updates are minted by the test PKIs (era 4: a quote bound to the real multi-token
 * userData of 2026-01-14).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { mintedUpdates, MRENCLAVE } from '../support/ledger-fixture.js';
import { defaultPcrs } from '../support/typeb-pki.js';
import { reverifyCommand } from '../../src/cli/reverify.js';
import { formatPcrStruct, formatUniqueId } from '../../src/aleo/ids.js';
import { KNOWN_PROGRAM_IDS } from '../../src/ledger/programs.js';

const OFFICIAL = 'official_oracle.aleo';
const VLINK = 'vlink_oracle_v0001.aleo';
const VERU2 = 'veru_oracle_v2.aleo';
const IFACE5 = 'veru_oracle_interface_v5.aleo';
const DATA5 = 'veru_oracle_data_v5.aleo';
const COUNCIL5 = 'veru_oracle_council_imp_v5.aleo';
const OTHER = 'other_oracle.aleo';
const VOTERS = `[${Array(5).fill('aleo1urxgwaz5yqf5u7ajlc52lxcq7a3u62tpk4m5ryl5e8xplz0mxy9sd6thfe').join(', ')}]`;
const OTHER_ID = new Uint8Array(32).fill(0x33);

let dir: string;
let node: LedgerNode;
let env: MintedCliEnv;
const tx: Record<string, { transactionId: string; transitionIds: string[] }> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-programs-'));
  env = await startMintedCliEnv(dir, MRENCLAVE);
  writeFileSync(join(dir, 'config-official.json'), JSON.stringify({ ...env.config, ledgerPrograms: [OFFICIAL] }));

  const { sgx, nitro, era4 } = mintedUpdates(env);

  const chain = new LedgerChain(700, 760);
  const u = (program: string, fn: string, d: { userData: string; report: string }) => t.update(program, fn, d.userData, d.report);
  tx.officialOwner = chain.add(701, [t.setUniqueId(OFFICIAL, formatUniqueId(MRENCLAVE)), t.setPcrValues(OFFICIAL, formatPcrStruct(defaultPcrs().slice(0, 3)))]);
  tx.officialSgx = chain.add(702, [u(OFFICIAL, 'set_data_sgx', sgx('1.00000001'))]);
  tx.officialNitro = chain.add(703, [u(OFFICIAL, 'set_data_nitro', nitro('1.00000002'))]);
  tx.vlinkNitro = chain.add(705, [u(VLINK, 'set_data_nitro', nitro('2.00000001'))]);
  tx.veruOwner = chain.add(706, [t.setUniqueId(VERU2, formatUniqueId(OTHER_ID))]);
  // A wrapping program's transaction: the callee's transition comes first, then the caller's.
  tx.veruWrapped = chain.add(707, [u(VERU2, 'set_data_sgx', sgx('3.00000001')), t.other('price_vault.aleo', 'refresh_price', ['8u8'])]);
  // Era 4: the unique ID lives in the data program; the council sets it there (the data program's
  // transition, its callee, comes first).
  tx.ifaceOwner = chain.add(710, [t.setUniqueId(DATA5, formatUniqueId(MRENCLAVE)), t.other(COUNCIL5, 'tb_set_unique_id', ['7u32', formatUniqueId(MRENCLAVE), VOTERS])]);
  tx.ifaceSingle = chain.add(711, [u(IFACE5, 'set_single_data_sgx', era4)]);
  tx.ifaceWrapped = chain.add(712, [
    t.other(DATA5, 'set_sgx_data', ['aleo1urxgwaz5yqf5u7ajlc52lxcq7a3u62tpk4m5ryl5e8xplz0mxy9sd6thfe', '1u128', '2u128', '[]']),
    u(IFACE5, 'set_multiple_data_sgx', era4),
    t.other('lending_pool.aleo', 'update_prices', ['1u8']),
  ]);
  tx.ifaceFive = chain.add(713, [u(IFACE5, 'set_five_data_sgx', era4)]);
  tx.unknown = chain.add(715, [t.other('other_oracle.aleo', 'set_data_sgx', [sgx('9.0').userData, sgx('9.0').report])]);
  node = await startLedgerNode();
  chain.install(node);

  // The wrapped era-4 transaction, saved as a node serves it, for the tx-dir source.
  mkdirSync(join(dir, 'txs'));
  writeFileSync(join(dir, 'txs', '712.json'), JSON.stringify(chain.block(712).transactions));
});

afterAll(async () => {
  await node?.close();
  await env?.pccs.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(extra: string[], name: string, configFile = env.configFile): Promise<{ code: number; stderr: string; records: any[] }> {
  const out = join(dir, `${name}.jsonl`);
  let stderr = '';
  const code = await reverifyCommand(['--config', configFile, '--at', env.at, '--workers', '0', '--out', out, '--progress-interval', '0', ...extra], {
    stderr: (s) => void (stderr += s),
    tty: false,
  });
  return { code, stderr, records: readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

const scan = ['--node', '', '--from', '700', '--to', '761'];
const scanArgs = () => scan.map((x) => (x === '' ? node.url : x));
const shape = (r: any) => [r.blockHeight, r.program, r.function, r.transitionId];

describe('reverify follows every era’s oracle programs', () => {
  it("by default follows every known program, wrapped calls included, and records an unknown program's update as unrecognized", async () => {
    const { code, records, stderr } = await run(scanArgs(), 'all');
    const updates = records.filter((r) => r.kind !== 'measurement');
    expect(updates.map(shape)).toEqual([
      [702, OFFICIAL, 'set_data_sgx', tx.officialSgx!.transitionIds[0]],
      [703, OFFICIAL, 'set_data_nitro', tx.officialNitro!.transitionIds[0]],
      [705, VLINK, 'set_data_nitro', tx.vlinkNitro!.transitionIds[0]],
      [707, VERU2, 'set_data_sgx', tx.veruWrapped!.transitionIds[0]],
      [711, IFACE5, 'set_single_data_sgx', tx.ifaceSingle!.transitionIds[0]],
      [712, IFACE5, 'set_multiple_data_sgx', tx.ifaceWrapped!.transitionIds[1]],
      [713, IFACE5, 'set_five_data_sgx', tx.ifaceFive!.transitionIds[0]],
      [715, OTHER, 'set_data_sgx', tx.unknown!.transitionIds[0]],
    ]);
    expect(records.filter((r) => r.kind === 'measurement').map(shape)).toEqual([
      [701, OFFICIAL, 'set_unique_id', tx.officialOwner!.transitionIds[0]],
      [701, OFFICIAL, 'set_pcr_values', tx.officialOwner!.transitionIds[1]],
      [706, VERU2, 'set_unique_id', tx.veruOwner!.transitionIds[0]],
      [710, DATA5, 'set_unique_id', tx.ifaceOwner!.transitionIds[0]],
    ]);
    // Never silent: the unknown program's transition of update shape is verified and marked.
    expect(updates.find((r) => r.blockHeight === 715)).toMatchObject({ unrecognized: true, kind: 'typeA', reportValid: true, outcome: 'valid' });
    expect(updates.filter((r) => r.unrecognized).length).toBe(1);
    const by = (h: number) => updates.find((r) => r.blockHeight === h);
    // Eras 1–3 (8-chunk userData): verified; the measurement in force is the one of each update's own program.
    expect(by(702)).toMatchObject({ transactionId: tx.officialSgx!.transactionId, kind: 'typeA', reportValid: true, measurementInForce: { matches: true, sourceHeight: 701 } });
    expect(by(703)).toMatchObject({ kind: 'typeB', reportValid: true, measurementInForce: { matches: true, sourceHeight: 701 } });
    expect(by(705)).toMatchObject({ kind: 'typeB', reportValid: true });
    // No owner transition of vlink_oracle_v0001 was seen: the record says "unknown" and why, and the summary counts it (issue 32, item 8).
    expect(by(705).measurementInForce).toEqual({ matches: 'unknown', reason: expect.stringMatching(/^no owner transition of vlink_oracle_v0001\.aleo setting its pcrs was replayed before this update/) });
    expect(by(715).measurementInForce).toMatchObject({ matches: 'unknown', reason: expect.stringContaining(`no owner transition of ${OTHER} setting its uniqueId`) });
    expect(stderr).toMatch(/updates not matching the measurement in force 1, with the measurement in force unknown 2$/m);
    expect(by(707)).toMatchObject({ transactionId: tx.veruWrapped!.transactionId, kind: 'typeA', reportValid: true, measurementInForce: { matches: false, sourceHeight: 706 } });
    expect(by(707).decodedData.attestationData).toBe('3.00000001');
    // Era 4 (10-chunk userData): found as typeA updates of the interface program.
    for (const h of [711, 712, 713]) expect(by(h)).toMatchObject({ kind: 'typeA', program: IFACE5 });
    // The 10-chunk updates verify, against the unique ID set in the data program at height 710.
    for (const h of [711, 712, 713]) {
      expect(by(h)).toMatchObject({ reportValid: true, measurementInForce: { matches: true, sourceHeight: 710 } });
      expect(by(h).errorCode).toBeUndefined();
    }
    expect(code).toBe(0);
  });

  it('--program restricts the scan to the named programs (with or without .aleo)', async () => {
    const { code, records } = await run([...scanArgs(), '--program', 'veru_oracle_v2', VLINK], 'filtered');
    expect(records.map(shape)).toEqual([
      [705, VLINK, 'set_data_nitro', tx.vlinkNitro!.transitionIds[0]],
      [706, VERU2, 'set_unique_id', tx.veruOwner!.transitionIds[0]],
      [707, VERU2, 'set_data_sgx', tx.veruWrapped!.transitionIds[0]],
      [715, OTHER, 'set_data_sgx', tx.unknown!.transitionIds[0]],
    ]);
    expect(code).toBe(0);
  });

  it('the config key ledgerPrograms restricts the scan when --program is not given', async () => {
    const { code, records } = await run(scanArgs(), 'config-filtered', join(dir, 'config-official.json'));
    expect(records.map((r) => r.program)).toEqual([OFFICIAL, OFFICIAL, OFFICIAL, OFFICIAL, OTHER]);
    expect(records.filter((r) => r.kind !== 'measurement').map((r) => r.blockHeight)).toEqual([702, 703, 715]);
    expect(code).toBe(0);
  });

  it('finds the wrapped era-4 update in saved transactions (tx-dir), every program followed by default', async () => {
    const { records } = await run(['--tx-dir', join(dir, 'txs')], 'txdir');
    expect(records.map((r) => [r.program, r.function, r.transitionId])).toEqual([[IFACE5, 'set_multiple_data_sgx', tx.ifaceWrapped!.transitionIds[1]]]);
  });

  it('refuses --program where no ledger is scanned (--jsonl)', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    await expect(run(['--jsonl', join(dir, 'empty.jsonl'), '--program', OFFICIAL], 'jsonl')).rejects.toMatchObject({ code: 'CLI_USAGE', message: 'reverify: --program applies to --node and --tx-dir' });
  });

  it('refuses an unknown program with the list of known ones', async () => {
    await expect(run([...scanArgs(), '--program', 'other_oracle'], 'unknown')).rejects.toMatchObject({
      code: 'CLI_USAGE',
      message: `reverify --program: unknown oracle program other_oracle.aleo (known: ${KNOWN_PROGRAM_IDS.join(', ')})`,
    });
  });
});
