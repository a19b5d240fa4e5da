/**
 * A ledger of every era for the ledger routes and the watcher: minted typeA/typeB PKIs (config at
 * `dir`/config.json), a chain served by the ledger-node simulator with updates of each era's oracle
 * program (era 4: the real 10-chunk userData of 2026-01-14), calls wrapped by other programs, a
 * rejected transaction, owner transitions, a transfer, an unknown program's look-alike (an
 * update the registry does not name: stored as unrecognized, never dropped) and an owner's
 * overwrite of stored data (an unattested write).
 */
import { hashReportData } from '../../src/hash/index.js';
import { formatPcrStruct, formatUniqueId } from '../../src/aleo/ids.js';
import { updateKindOf } from '../../src/ledger/programs.js';
import { parseChunkedStruct } from '../../src/aleo/struct.js';
import { LedgerChain, t } from './ledger-chain.js';
import { startLedgerNode, type LedgerNode } from './ledger-node.js';
import { makeUserData, openEnclaveReport, reportText } from './ledger-reports.js';
import { startMintedCliEnv, type MintedCliEnv } from './minted-cli.js';
import type { ProofDataInput } from '../../src/encoding/types.js';
import { readVectorJson } from './paths.js';
import { defaultPcrs } from './typeb-pki.js';

export const OFFICIAL = 'official_oracle.aleo';
export const VLINK = 'vlink_oracle_v0001.aleo';
export const VERU2 = 'veru_oracle_v2.aleo';
export const IFACE5 = 'veru_oracle_interface_v5.aleo';
export const MRENCLAVE = new Uint8Array(32).fill(0x5a);

export interface LedgerFixture {
  env: MintedCliEnv;
  chain: LedgerChain;
  node: LedgerNode;
  tx: Record<string, { transactionId: string; transitionIds: string[] }>;
  /** The accepted update transitions of followed programs: what a full scan stores, in ledger order. */
  expected: { height: number; transactionId: string; transitionId: string; program: string; function: string }[];
  close(): Promise<void>;
}

/**
 * Ledger inputs minted by the env's PKIs: an SGX or Nitro update of one price (`extra`: other
 * request fields, such as its timestamp), and the real era-4 10-chunk userData bound by a quote.
 */
export function mintedUpdates(env: MintedCliEnv): { sgx(value: string, extra?: Partial<ProofDataInput>): Update; nitro(value: string): Update; era4: Update } {
  const { typeA: a, typeB: b } = env;
  const sgx = (value: string, extra: Partial<ProofDataInput> = {}) => {
    const ud = makeUserData({ attestationData: value, ...extra });
    const rd = new Uint8Array(64);
    rd.set(ud.hash);
    return { userData: ud.text, report: reportText(openEnclaveReport(a.quote({ reportData: rd, mrEnclave: MRENCLAVE }))) };
  };
  const nitro = (value: string) => {
    const ud = makeUserData({ attestationData: value });
    return { userData: ud.text, report: reportText(b.mintDocument({ userData: ud.hash })) };
  };
  // Era 4: the real 10-chunk userData (three price requests), bound by a minted quote.
  const multi = readVectorJson<any>('aleo/venture23/multi-token-2026-01-14.response.json');
  const era4UserData: string = multi.oracleData.userData;
  const era4Rd = new Uint8Array(64);
  era4Rd.set(hashReportData(parseChunkedStruct(era4UserData, 10, 'userData')));
  return { sgx, nitro, era4: { userData: era4UserData, report: reportText(openEnclaveReport(a.quote({ reportData: era4Rd, mrEnclave: MRENCLAVE }))) } };
}

export interface Update {
  userData: string;
  report: string;
}

/**
 * `extraSgx`: more typeA updates spread over the chain; `timestamps`: one typeA update more per
 * value, attesting that time (seconds; −1 is the u64 2^64−1), as transactions `time0`, `time1`…
 */
export async function startLedgerFixture(dir: string, o: { first?: number; latest?: number; extraSgx?: number; timestamps?: number[] } = {}): Promise<LedgerFixture> {
  const env = await startMintedCliEnv(dir, MRENCLAVE);
  const { sgx, nitro, era4 } = mintedUpdates(env);

  const first = o.first ?? 700;
  const chain = new LedgerChain(first, o.latest ?? first + 60);
  const u = (program: string, fn: string, d: { userData: string; report: string }) => t.update(program, fn, d.userData, d.report);
  const tx: LedgerFixture['tx'] = {};
  const h = (k: number) => first + k;
  tx.owner = chain.add(h(1), [t.setUniqueId(OFFICIAL, formatUniqueId(MRENCLAVE)), t.setPcrValues(OFFICIAL, formatPcrStruct(defaultPcrs().slice(0, 3)))]);
  tx.officialSgx = chain.add(h(2), [u(OFFICIAL, 'set_data_sgx', sgx('1.00000001'))]);
  tx.officialNitro = chain.add(h(3), [u(OFFICIAL, 'set_data_nitro', nitro('1.00000002'))]);
  tx.rejected = chain.add(h(4), [u(OFFICIAL, 'set_data_sgx', sgx('1.5'))], { rejected: true });
  tx.vlinkNitro = chain.add(h(5), [u(VLINK, 'set_data_nitro', nitro('2.00000001'))]);
  tx.veruWrapped = chain.add(h(7), [u(VERU2, 'set_data_sgx', sgx('3.00000001')), t.other('price_vault.aleo', 'refresh_price', ['8u8'])]);
  // An invalid update: a typeB document bound to other data than the userData it came with.
  tx.invalid = chain.add(h(8), [t.update(VLINK, 'set_data_nitro', nitro('4.0').userData, nitro('4.1').report)]);
  tx.transfer = chain.add(h(9), [t.transfer()]);
  tx.ifaceSingle = chain.add(h(11), [u(IFACE5, 'set_single_data_sgx', era4)]);
  tx.ifaceWrapped = chain.add(h(12), [t.other('veru_oracle_data_v5.aleo', 'set_data', ['1u128', '2u128']), u(IFACE5, 'set_multiple_data_sgx', era4), t.other('lending_pool.aleo', 'update_prices', ['1u8'])]);
  tx.ifaceFive = chain.add(h(13), [u(IFACE5, 'set_five_data_sgx', era4)]);
  tx.unknown = chain.add(h(15), [t.other('other_oracle.aleo', 'set_data_sgx', [sgx('9.0').userData, sgx('9.0').report])]);
  // The owner overwrites stored SGX data (no report): an unattested write.
  tx.overwrite = chain.add(h(16), [t.other(VERU2, 'update_historic_data', ['true', '77u128', '{ data: 123u128, attestation_timestamp: 1725008028u128 }'])]);
  // Two updates in one block, and (optionally) more typeA updates spread over the chain.
  tx.pair = chain.add(h(20), [u(OFFICIAL, 'set_data_sgx', sgx('5.1')), u(OFFICIAL, 'set_data_nitro', nitro('5.2'))]);
  for (let i = 0; i < (o.extraSgx ?? 0); i++) chain.add(h(21 + i), [u(VERU2, 'set_data_sgx', sgx(`6.${i + 1}`))]);
  (o.timestamps ?? []).forEach((timestamp, i) => {
    tx[`time${i}`] = chain.add(h(21 + (o.extraSgx ?? 0) + i), [u(VERU2, 'set_data_sgx', sgx(`7.${i + 1}`, { timestamp }))]);
  });
  const node = await startLedgerNode();
  chain.install(node);
  // Every record stored: the registry's updates, the unknown program's look-alike (unrecognized)
  // and the owner's overwrite (unattested).
  const unrecognized = new Set([...tx.unknown.transitionIds, ...tx.overwrite.transitionIds]);
  const expected = chain.added.filter((x) => x.accepted && (updateKindOf(x.program, x.function) !== undefined || unrecognized.has(x.transitionId)));
  return {
    env,
    chain,
    node,
    tx,
    expected,
    close: async () => {
      await node.close();
      await env.pccs.close();
    },
  };
}
