/**
 * The oracle's ledger programs, as their public Leo sources and the operator's gateway
 * configuration lay them out (docs/ledger-programs.md has each fact with its source). Every
 * function of a program has one role:
 * - `update`: carries an attested userData struct and a report struct (the input positions say
 *   where) of one report kind: verified;
 * - `measurement`: the owner (or the council, through it) sets a kind's target measurement in the
 *   program that holds the mapping (era 4: the data program): replayed as the measurement in force;
 * - `unattested`: writes oracle data with no report (owner or council overwrites): recorded as such;
 * - `callee`: called by another program's update in the same transaction, which accounts for it;
 * - `ignored`: administration (keys, pause, ownership, checksums), nothing to verify.
 * A transition of a followed program whose function has no role, or of a program not followed,
 * whose inputs hold a userData-shaped and a report struct, is never dropped: it is recorded as
 * unrecognized (src/ledger/records/transitions.ts).
 *
 * Adding a program is one entry in BUILT_IN_PROGRAMS, or one `ledgerPrograms` entry in config.json
 * (no release): `programRegistry(extra)` merges those.
 */
import { KINDS, type ReportType } from '../verify/kinds/index.js';
import { typeA } from '../verify/kinds/typeA/index.js';
import { typeB } from '../verify/kinds/typeB/index.js';

/** Report kind an update transition carries (typeA = SGX quote, typeB = Nitro document). */
export type UpdateKind = ReportType;

/**
 * What a measurement transition sets: a kind's target measurement, by its ledger name (the SGX
 * unique ID in `sgx_unique_id`, the Nitro PCRs in `nitro_pcr_values`).
 */
export type MeasurementKind = string;

export type FunctionRole =
  | { readonly role: 'update'; readonly kind: UpdateKind; readonly userData: number; readonly report: number }
  | { readonly role: 'measurement'; readonly sets: MeasurementKind; readonly input: number }
  | { readonly role: 'unattested'; readonly mapping: string | MappingChoice; readonly key: number; readonly value: number }
  | { readonly role: 'callee'; readonly caller: string }
  | { readonly role: 'ignored' };

/** A mapping chosen by a boolean input (the first generation's overwrite: SGX or Nitro data). */
export interface MappingChoice {
  readonly input: number;
  readonly ifTrue: string;
  readonly ifFalse: string;
}

export interface OracleProgram {
  /** Program id with `.aleo`. */
  readonly id: string;
  /** Where it was deployed (the gateway's production config names mainnet programs). */
  readonly network: 'mainnet' | 'testnet' | 'unknown';
  /** Oracle eras (README of the venture23 vectors) in which the program received updates. */
  readonly eras: readonly number[];
  readonly functions: Readonly<Record<string, FunctionRole>>;
  /** Program whose mappings hold the measurements (itself unless it keeps them in a data program). */
  readonly mappingProgram: string;
  /** Measurements the mapping program holds. */
  readonly measurements: readonly MeasurementKind[];
  /** Programs followed together with this one (its data program, the council that drives it). */
  readonly related: readonly string[];
  /** Where the layout comes from. */
  readonly source: string;
  /** Where and how its updates store the attested data (the mapping cross-check); absent: not tracked. */
  readonly attestedData?: AttestedDataLayout;
}

/**
 * What an update stores (Leo sources: docs/ledger-programs.md): in `program`'s mapping of the
 * report kind (`sgx_attested_data`, `nitro_attested_data`), `AttestedData { data: f2,
 * attestation_timestamp: f3 }` under the request hash (only when newer than the value there) and
 * under the timestamped hash Poseidon8 { request_hash, attestation_timestamp } (always).
 */
export interface AttestedDataLayout {
  /** The program holding the mappings. */
  readonly program: string;
  /** The mapping of each report kind. */
  readonly mappings: Readonly<Partial<Record<UpdateKind, string>>>;
  /**
   * `userData`: one entry per update, the request hash = Poseidon8 of the whole userData with c0.f2
   * and c0.f3 zeroed, the value from c0 (8-chunk programs); `chunk`: one entry per chunk, the
   * request hash = Poseidon8 of `{ c0: chunk }` with f2 and f3 zeroed, chunks whose f1 is 0 skipped.
   */
  readonly key: 'userData' | 'chunk';
  /** The update functions that store, with the number of chunks each stores (key `chunk`: c0 … c(n−1)). */
  readonly functions: Readonly<Record<string, number>>;
  /** Set when the sources do not settle the key: the keys computed as `key` says are listed as not checked, with this reason. */
  readonly uncertain?: string;
}

const UNIQUE_ID = typeA.target.ledger.name;
const PCRS = typeB.target.ledger.name;
/** Every kind's measurement: what a program of unknown layout is taken to hold. */
const EVERY_MEASUREMENT: readonly MeasurementKind[] = KINDS.map((k) => k.target.ledger.name);

/** Update inputs of every oracle program so far: (report_data, report, sig, pub_key). */
const update = (kind: UpdateKind): FunctionRole => ({ role: 'update', kind, userData: 0, report: 1 });
const sets = (m: MeasurementKind, input = 0): FunctionRole => ({ role: 'measurement', sets: m, input });
const IGNORED: FunctionRole = { role: 'ignored' };
const ADMIN = ['initialize', 'transfer_ownership', 'pause', 'unpause', 'set_key'];
const admin = (names: readonly string[] = ADMIN): Record<string, FunctionRole> => Object.fromEntries(names.map((n) => [n, IGNORED]));

/**
 * The first generation (8-chunk userData; SGX and Nitro): official_oracle, vlink_oracle_v0001,
 * vlink_oracle_v2, veru_oracle_v2. Later ones add an owner overwrite of stored data, keyed by the
 * timestamped request hash, whose first input says which mapping (SGX or Nitro) it writes.
 */
function firstGeneration(
  id: string,
  network: OracleProgram['network'],
  eras: readonly number[],
  source: string,
  o: { overwrites?: readonly string[]; more?: Record<string, FunctionRole> } = {},
): OracleProgram {
  const overwrite: FunctionRole = { role: 'unattested', mapping: { input: 0, ifTrue: 'sgx_attested_data', ifFalse: 'nitro_attested_data' }, key: 1, value: 2 };
  return {
    id,
    network,
    eras,
    functions: {
      set_data_sgx: update(typeA.id),
      set_data_nitro: update(typeB.id),
      set_unique_id: sets(UNIQUE_ID),
      set_pcr_values: sets(PCRS),
      ...admin(),
      ...Object.fromEntries((o.overwrites ?? []).map((f) => [f, overwrite])),
      ...o.more,
    },
    mappingProgram: id,
    measurements: [UNIQUE_ID, PCRS],
    related: [],
    source,
    attestedData: firstGenerationData(id),
  };
}

/**
 * The first generation's stores: set_data_sgx and set_data_nitro, one entry keyed by the whole
 * userData. (The 2024 testnet program's set_data wrote other mappings, `attested_data: u128 =>
 * u128`: not tracked.)
 */
function firstGenerationData(id: string): AttestedDataLayout {
  return { program: id, mappings: { [typeA.id]: 'sgx_attested_data', [typeB.id]: 'nitro_attested_data' }, key: 'userData', functions: { set_data_sgx: 1, set_data_nitro: 1 } };
}

const DATA_V5 = 'veru_oracle_data_v5.aleo';
const IFACE_V5 = 'veru_oracle_interface_v5.aleo';
const DATA_V3 = 'veru_oracle_data_v3.aleo';
const IFACE_V3 = 'veru_oracle_interface_v3.aleo';
const COUNCIL_V5 = 'veru_oracle_council_imp_v5.aleo';
const OVERWRITE_10 = { role: 'unattested', mapping: 'sgx_attested_data', key: 0, value: 1 } as const;
const CONTRACTS = 'venture23-aleo/aleo-oracle-contracts';

/** Every known oracle program, oldest era first. */
export const BUILT_IN_PROGRAMS: readonly OracleProgram[] = [
  // The first testnet program of that name (2024) had one update function, set_data (SGX only).
  firstGeneration('official_oracle.aleo', 'mainnet', [1], 'zkportal/aleo-oracle-docs docs/guide/oracle_program.md', { more: { set_data: update(typeA.id) } }),
  // zkportal's testnet deployment of the same code.
  firstGeneration('official_oracle_v2.aleo', 'testnet', [1], 'zkportal/aleo-oracle-docs (migration guide: the same program)'),
  firstGeneration('vlink_oracle_v0001.aleo', 'mainnet', [2], `${CONTRACTS} programs/vlink_oracle_v0001.leo`, { overwrites: ['update_historic_data', 'update_oracle_data'] }),
  // Named by the gateway's testnet config of 2025-07-18 only; no source: the layout of its mainnet sibling.
  firstGeneration('vlink_oracle_v0002.aleo', 'testnet', [2], 'venture23-aleo/aleo-oracle-gateway config/default.json (2025-07-18); layout assumed as vlink_oracle_v0001'),
  firstGeneration('vlink_oracle_v2.aleo', 'testnet', [2], `${CONTRACTS} programs/vlink_oracle_v2.leo`, { overwrites: ['update_historic_data'] }),
  firstGeneration('veru_oracle_v2.aleo', 'mainnet', [2, 3], `${CONTRACTS} programs/veru_oracle_v2.leo`, { overwrites: ['update_historic_data'] }),
  {
    // Mainnet since 2026-02-02 (gateway config/production.json). Its repository source has
    // set_data_sgx; the gateway calls set_single_data_sgx and set_five_data_sgx: all are updates.
    id: IFACE_V3,
    network: 'mainnet',
    eras: [4],
    functions: {
      set_data_sgx: update(typeA.id),
      set_single_data_sgx: update(typeA.id),
      set_five_data_sgx: update(typeA.id),
      set_multiple_data_sgx: update(typeA.id),
    },
    mappingProgram: DATA_V3,
    measurements: [UNIQUE_ID, PCRS],
    related: [DATA_V3],
    source: `${CONTRACTS} programs/veru_oracle_interface_v3.leo; venture23-aleo/aleo-oracle-gateway config/production.json`,
    attestedData: {
      program: DATA_V3,
      mappings: { [typeA.id]: 'sgx_attested_data' },
      key: 'chunk',
      functions: { set_data_sgx: 10, set_single_data_sgx: 1, set_five_data_sgx: 5, set_multiple_data_sgx: 10 },
      uncertain:
        "the key veru_oracle_data_v3.aleo uses is not established: its repository source hashes a 10-chunk struct with f2, f3 and f4 zeroed, and the functions the gateway calls are not in that source (the deployed program differs); shown here with the notarizer's per-chunk request hash",
    },
  },
  {
    id: DATA_V3,
    network: 'mainnet',
    eras: [4],
    functions: {
      set_timestampped_data: { role: 'callee', caller: IFACE_V3 },
      set_request_hash_data: { role: 'callee', caller: IFACE_V3 },
      set_unique_id: sets(UNIQUE_ID),
      set_pcr_values: sets(PCRS),
      update_historic_data: OVERWRITE_10,
      ...admin(),
    },
    mappingProgram: DATA_V3,
    measurements: [UNIQUE_ID, PCRS],
    related: [IFACE_V3],
    source: `${CONTRACTS} programs/veru_oracle_data_v3.leo`,
  },
  {
    id: IFACE_V5,
    network: 'mainnet',
    eras: [4],
    functions: {
      set_multiple_data_sgx: update(typeA.id),
      set_single_data_sgx: update(typeA.id),
      set_five_data_sgx: update(typeA.id),
    },
    mappingProgram: DATA_V5,
    measurements: [UNIQUE_ID],
    related: [DATA_V5, COUNCIL_V5],
    source: `${CONTRACTS} programs/veru_oracle_interface_v5.leo`,
    // set_single_data_sgx stores c0, set_five_data_sgx c0..c4, set_multiple_data_sgx c0..c9 (two calls of set_sgx_data).
    attestedData: { program: DATA_V5, mappings: { [typeA.id]: 'sgx_attested_data' }, key: 'chunk', functions: { set_single_data_sgx: 1, set_five_data_sgx: 5, set_multiple_data_sgx: 10 } },
  },
  {
    // The data program holds the mappings; only interface_v5 may call its writes. The unique ID is
    // set here, directly or from the council's tb_set_unique_id (whose callee this transition is).
    id: DATA_V5,
    network: 'mainnet',
    eras: [4],
    functions: {
      set_sgx_data: { role: 'callee', caller: IFACE_V5 },
      set_single_data_sgx: { role: 'callee', caller: IFACE_V5 },
      set_unique_id: sets(UNIQUE_ID),
      update_historic_data: OVERWRITE_10,
      ...admin(),
    },
    mappingProgram: DATA_V5,
    measurements: [UNIQUE_ID],
    related: [IFACE_V5, COUNCIL_V5],
    source: `${CONTRACTS} programs/veru_oracle_data_v5.leo`,
  },
  {
    // The council's proposals run through the data program: its set_unique_id and
    // update_historic_data transitions in the same transaction carry what was written.
    id: COUNCIL_V5,
    network: 'mainnet',
    eras: [4],
    functions: admin([
      'tb_set_unique_id', 'update_historic_data', 'oracle_transfer_ownership', 'tb_set_key', 'pause', 'unpause', 'update_program_checksum',
      'checksum_transfer_ownership',
    ]),
    mappingProgram: DATA_V5,
    measurements: [UNIQUE_ID],
    related: [DATA_V5, IFACE_V5],
    source: `${CONTRACTS} programs/veru_oracle_council_imp_v5.leo`,
  },
];

/** `name` with `.aleo` appended when missing. */
export function normaliseProgramId(name: string): string {
  return name.endsWith('.aleo') ? name : `${name}.aleo`;
}

const own = <T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

/** The metric label of a program or function the registry does not name. */
export const OTHER_LABEL = 'other';

/** The programs the verifier knows: the built-in ones and those a config adds (same id: the config's). */
export class ProgramRegistry {
  readonly programs: readonly OracleProgram[];
  private readonly byId: ReadonlyMap<string, OracleProgram>;

  constructor(extra: readonly OracleProgram[] = []) {
    const byId = new Map<string, OracleProgram>();
    for (const p of [...BUILT_IN_PROGRAMS, ...extra]) byId.set(p.id, p);
    this.byId = byId;
    this.programs = [...byId.values()];
  }

  get ids(): string[] {
    return this.programs.map((p) => p.id);
  }

  /**
   * Metric labels of a ledger write, from a closed set: the program's id when the registry names
   * it, the function's name when the registry names it for any program, else `other` (the names
   * of unrecognized transitions come from anyone who deploys a program: as labels they would grow
   * the series set without bound; the store and GET /ledger/updates keep them in full).
   */
  metricLabels(program: string, fn: string): { program: string; function: string } {
    const p = this.program(program);
    const named = this.programs.some((q) => own(q.functions, fn) !== undefined);
    return { program: p ? p.id : OTHER_LABEL, function: named ? fn : OTHER_LABEL };
  }

  /** The entry of a program id (with or without `.aleo`), if known. */
  program(id: string): OracleProgram | undefined {
    return this.byId.get(normaliseProgramId(id));
  }

  /** The role of `fn` in `program`, if the registry has one. */
  roleOf(program: string | undefined, fn: string | undefined): FunctionRole | undefined {
    if (program === undefined || fn === undefined) return undefined;
    return own(this.program(program)?.functions, fn);
  }

  /**
   * Where a program's measurements live: the program holding the mappings and which measurements
   * it holds. An unknown program is taken to hold every kind's itself (the first-generation layout).
   */
  measurementLocation(id: string): { program: string; measurements: readonly MeasurementKind[] } {
    const p = this.program(id);
    return p ? { program: p.mappingProgram, measurements: p.measurements } : { program: normaliseProgramId(id), measurements: EVERY_MEASUREMENT };
  }

  /** The programs followed when these are named: each with its related programs, in registry order. */
  withRelated(ids: readonly string[]): string[] {
    const want = new Set<string>();
    for (const id of ids.map(normaliseProgramId)) {
      want.add(id);
      for (const r of this.program(id)?.related ?? []) want.add(r);
    }
    return [...this.ids.filter((id) => want.has(id)), ...[...want].filter((id) => !this.byId.has(id))];
  }
}

/** The built-in programs alone. */
export const PROGRAMS = new ProgramRegistry();

export const KNOWN_PROGRAM_IDS: readonly string[] = PROGRAMS.ids;

export function measurementLocation(id: string): { program: string; measurements: readonly MeasurementKind[] } {
  return PROGRAMS.measurementLocation(id);
}

/** The report kind of an update transition, if `fn` is one of `program`'s updates (built-in programs). */
export function updateKindOf(program: string | undefined, fn: string | undefined): UpdateKind | undefined {
  const r = PROGRAMS.roleOf(program, fn);
  return r?.role === 'update' ? r.kind : undefined;
}
