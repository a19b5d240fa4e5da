/**
 * `ledgerPrograms` in config.json: which oracle programs to follow, and programs the release does
 * not know yet, with the role of each function (src/ledger/programs.ts), so that a new program
 * needs a config change, not a release. An entry is a program id (`NAME` or `NAME.aleo`: a
 * built-in program, or one this list defines), or an object defining a program:
 *
 *   { "id": "my_oracle_v2.aleo",
 *     "functions": { "set_data_sgx": { "role": "update", "kind": "typeA", "userData": 0, "report": 1 },
 *                    "set_unique_id": { "role": "measurement", "sets": "uniqueId", "input": 0 },
 *                    "update_historic_data": { "role": "unattested", "mapping": "sgx_attested_data", "key": 0, "value": 1 },
 *                    "set_key": { "role": "ignored" } },
 *     "mappingProgram": "my_oracle_data_v2.aleo", "measurements": ["uniqueId"], "related": ["my_oracle_data_v2.aleo"],
 *     "attestedData": { "program": "my_oracle_data_v2.aleo", "mappings": { "typeA": "sgx_attested_data" },
 *                       "key": "chunk", "functions": { "set_data_sgx": 10 } } }
 *
 * A defined program with the id of a built-in one replaces it. Every defined program is followed.
 */
import { KINDS, REPORT_TYPES } from '../verify/kinds/index.js';
import { normaliseProgramId, ProgramRegistry, type AttestedDataLayout, type FunctionRole, type OracleProgram } from './programs.js';

const programId = { type: 'string', pattern: '^[a-z][a-z0-9_]*(\\.aleo)?$', maxLength: 64 } as const;
const identifier = { type: 'string', pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 } as const;
const index = { type: 'integer', minimum: 0, maximum: 15 } as const;
const MEASUREMENT_NAMES = KINDS.map((k) => k.target.ledger.name);

const roleSchema = {
  type: 'object',
  required: ['role'],
  properties: { role: { type: 'string', enum: ['update', 'measurement', 'unattested', 'callee', 'ignored'] } },
  allOf: [
    {
      if: { properties: { role: { const: 'update' } } },
      then: { required: ['kind', 'userData', 'report'], additionalProperties: false, properties: { role: {}, kind: { type: 'string', enum: [...REPORT_TYPES] }, userData: index, report: index } },
    },
    {
      if: { properties: { role: { const: 'measurement' } } },
      then: { required: ['sets', 'input'], additionalProperties: false, properties: { role: {}, sets: { type: 'string', enum: MEASUREMENT_NAMES }, input: index } },
    },
    {
      if: { properties: { role: { const: 'unattested' } } },
      then: { required: ['mapping', 'key', 'value'], additionalProperties: false, properties: { role: {}, mapping: identifier, key: index, value: index } },
    },
    { if: { properties: { role: { const: 'callee' } } }, then: { required: ['caller'], additionalProperties: false, properties: { role: {}, caller: programId } } },
    { if: { properties: { role: { const: 'ignored' } } }, then: { additionalProperties: false, properties: { role: {} } } },
  ],
} as const;

/** The JSON schema of `ledgerPrograms` (config.json). */
export const ledgerProgramsSchema = {
  type: 'array',
  minItems: 1,
  description: 'Oracle programs to follow: built-in program ids, or programs defined here with the role of each function (docs/ledger-programs.md); unset: every known program',
  items: {
    oneOf: [
      programId,
      {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'functions'],
        properties: {
          id: programId,
          functions: { type: 'object', minProperties: 1, propertyNames: identifier, additionalProperties: roleSchema },
          mappingProgram: programId,
          measurements: { type: 'array', uniqueItems: true, items: { type: 'string', enum: MEASUREMENT_NAMES } },
          related: { type: 'array', uniqueItems: true, items: programId },
          network: { type: 'string', enum: ['mainnet', 'testnet', 'unknown'] },
          attestedData: {
            type: 'object',
            additionalProperties: false,
            required: ['mappings', 'key', 'functions'],
            description: 'Where its updates store the attested data, for the mapping cross-check (docs/ledger.md); absent: its keys are not tracked',
            properties: {
              program: programId,
              mappings: { type: 'object', minProperties: 1, additionalProperties: false, properties: Object.fromEntries(REPORT_TYPES.map((k) => [k, identifier])) },
              key: { type: 'string', enum: ['userData', 'chunk'] },
              functions: { type: 'object', minProperties: 1, propertyNames: identifier, additionalProperties: { type: 'integer', minimum: 1, maximum: 10 } },
            },
          },
        },
      },
    ],
  },
} as const;

export interface ProgramSpec {
  id: string;
  functions: Record<string, FunctionRole>;
  mappingProgram?: string;
  measurements?: string[];
  related?: string[];
  network?: OracleProgram['network'];
  attestedData?: { program?: string; mappings: Partial<Record<string, string>>; key: 'userData' | 'chunk'; functions: Record<string, number> };
}

export type LedgerProgramsSetting = (string | ProgramSpec)[];

/** The programs a setting defines, as registry entries. */
export function definedPrograms(setting: LedgerProgramsSetting | undefined): OracleProgram[] {
  return (setting ?? []).flatMap((e) => {
    if (typeof e === 'string') return [];
    const id = normaliseProgramId(e.id);
    const functions = Object.fromEntries(
      Object.entries(e.functions).map(([f, r]): [string, FunctionRole] => [f, r.role === 'callee' ? { role: 'callee', caller: normaliseProgramId(r.caller) } : r]),
    );
    return [
      {
        id,
        network: e.network ?? 'unknown',
        eras: [],
        functions,
        mappingProgram: normaliseProgramId(e.mappingProgram ?? id),
        measurements: e.measurements ?? MEASUREMENT_NAMES,
        related: (e.related ?? []).map(normaliseProgramId),
        source: 'config.json ledgerPrograms',
        ...(e.attestedData
          ? { attestedData: { ...e.attestedData, program: normaliseProgramId(e.attestedData.program ?? e.mappingProgram ?? id) } as AttestedDataLayout }
          : {}),
      },
    ];
  });
}

/** The program ids a setting names to follow (undefined: every program of the registry). */
export function namedPrograms(setting: LedgerProgramsSetting | undefined): string[] | undefined {
  return setting?.map((e) => normaliseProgramId(typeof e === 'string' ? e : e.id));
}

/** The registry of a config: the built-in programs and those its ledgerPrograms defines. */
export function registryOf(setting: LedgerProgramsSetting | undefined): ProgramRegistry {
  return new ProgramRegistry(definedPrograms(setting));
}
