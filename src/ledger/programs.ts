/**
 * The oracle's ledger programs of every era, one entry each (adding a program = adding one entry):
 * which transitions carry oracle updates (inputs 0 and 1 = the ReportData and Report structs, both
 * public), which transitions the program's owner uses to set the measurements (unique ID, PCRs),
 * and which program's mappings hold those measurements (era 4 keeps them in a separate data
 * program). Kinds and measurements are named through the report-kind registry (the kind's id,
 * its target's ledger name). Facts: ../shared/vectors/aleo/venture23/README.md (eras) and the
 * ledger research notes.
 */
import { KINDS, type ReportType } from '../verify/kinds/index.js';
import { typeA } from '../verify/kinds/typeA/index.js';
import { typeB } from '../verify/kinds/typeB/index.js';

/** Report kind an update transition carries (typeA = SGX quote, typeB = Nitro document). */
export type UpdateKind = ReportType;

/**
 * What an owner transition sets: a kind's target measurement, by its ledger name (the SGX unique
 * ID in `sgx_unique_id`, the Nitro PCRs in `nitro_pcr_values`).
 */
export type MeasurementKind = string;

/** Input positions of the userData (ReportData) and report (Report) structs in every update transition. */
export const UPDATE_INPUTS = { userData: 0, report: 1 } as const;

/** Input position of the measurement struct in every owner transition. */
export const OWNER_INPUT = 0;

export interface OracleProgram {
  /** Program id with `.aleo`. */
  readonly id: string;
  /** Oracle eras (README of the venture23 vectors) in which the program received updates. */
  readonly eras: readonly number[];
  /** Update transitions: function name → report kind. */
  readonly updates: Readonly<Record<string, UpdateKind>>;
  /** Owner transitions: function name → what it sets. */
  readonly owner: Readonly<Record<string, MeasurementKind>>;
  /** Program whose mappings hold the measurements (itself unless it keeps them in a data program). */
  readonly mappingProgram: string;
  /** Measurements the program's mappings hold (era 4 attests SGX only). */
  readonly measurements: readonly MeasurementKind[];
}

const UNIQUE_ID = typeA.target.ledger.name;
const PCRS = typeB.target.ledger.name;
/** Every kind's measurement: what a program of unknown layout is taken to hold. */
const EVERY_MEASUREMENT: readonly MeasurementKind[] = KINDS.map((k) => k.target.ledger.name);

const SGX_AND_NITRO = { set_data_sgx: typeA.id, set_data_nitro: typeB.id } as const;
const UNIQUE_ID_AND_PCRS = { set_unique_id: UNIQUE_ID, set_pcr_values: PCRS } as const;

function firstGeneration(id: string, eras: readonly number[]): OracleProgram {
  return { id, eras, updates: SGX_AND_NITRO, owner: UNIQUE_ID_AND_PCRS, mappingProgram: id, measurements: [UNIQUE_ID, PCRS] };
}

/** Every known oracle program, oldest era first. */
export const ORACLE_PROGRAMS: readonly OracleProgram[] = [
  firstGeneration('official_oracle.aleo', [1]),
  // zkportal's testnet deployment of the same code.
  firstGeneration('official_oracle_v2.aleo', [1]),
  firstGeneration('vlink_oracle_v0001.aleo', [2]),
  firstGeneration('veru_oracle_v2.aleo', [2, 3]),
  {
    id: 'veru_oracle_interface_v5.aleo',
    eras: [4],
    updates: { set_multiple_data_sgx: typeA.id, set_single_data_sgx: typeA.id, set_five_data_sgx: typeA.id },
    owner: { set_unique_id: UNIQUE_ID },
    mappingProgram: 'veru_oracle_data_v5.aleo',
    measurements: [UNIQUE_ID],
  },
];

/** `name` with `.aleo` appended when missing. */
export function normaliseProgramId(name: string): string {
  return name.endsWith('.aleo') ? name : `${name}.aleo`;
}

/** The registry entry of a program id (with or without `.aleo`), if known. */
export function oracleProgram(id: string): OracleProgram | undefined {
  const full = normaliseProgramId(id);
  return ORACLE_PROGRAMS.find((p) => p.id === full);
}

export const KNOWN_PROGRAM_IDS: readonly string[] = ORACLE_PROGRAMS.map((p) => p.id);

/**
 * Where a program's measurements live: the program holding the mappings and which measurements it
 * holds. An unknown program is taken to hold every kind's itself (the first-generation layout).
 */
export function measurementLocation(id: string): { program: string; measurements: readonly MeasurementKind[] } {
  const p = oracleProgram(id);
  return p ? { program: p.mappingProgram, measurements: p.measurements } : { program: normaliseProgramId(id), measurements: EVERY_MEASUREMENT };
}

const own = <T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

/** The report kind of an update transition, if `fn` is one of `program`'s. */
export function updateKindOf(program: string | undefined, fn: string | undefined): UpdateKind | undefined {
  if (program === undefined || fn === undefined) return undefined;
  return own(oracleProgram(program)?.updates, fn);
}

/** What an owner transition sets, if `fn` is one of `program`'s. */
export function ownerKindOf(program: string | undefined, fn: string | undefined): MeasurementKind | undefined {
  if (program === undefined || fn === undefined) return undefined;
  return own(oracleProgram(program)?.owner, fn);
}
