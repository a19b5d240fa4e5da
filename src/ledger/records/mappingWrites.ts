/**
 * What a ledger transition writes into the oracle's data mapping (the mapping cross-check,
 * src/ledger/watch/mappingCheck.ts): each entry names the program holding the mapping, the mapping,
 * the key (a Leo u128 literal, as the node's mapping route takes it) and, where known, the
 * `AttestedData { data, attestation_timestamp }` written.
 *
 * - An update stores, per request (the whole userData, or each chunk: AttestedDataLayout in
 *   src/ledger/programs.ts), its `{ data: f2, attestation_timestamp: f3 }` under the request hash
 *   (role `latest`: the chain writes it only when its timestamp is greater than the value there)
 *   and under the timestamped hash (role `historic`: written always). Computed from the userData
 *   bytes whatever the verification's outcome: the chain wrote it if the transaction was accepted.
 * - An unattested write (an owner or council overwrite) writes what its inputs say (role
 *   `unattested`).
 */
import { parseLeoU128Struct } from '../../aleo/leoValue.js';
import { parseUserData, requestKeysOf, type RequestKeys, type RequestLayout } from '../../encoding/eras/index.js';
import type { AttestedDataLayout, UpdateKind } from '../programs.js';

export type MappingWriteRole = 'latest' | 'historic' | 'unattested';

export interface MappingWrite {
  /** The program holding the mapping. */
  program: string;
  mapping: string;
  /** The key as a Leo literal (`123u128`). */
  key: string;
  role: MappingWriteRole;
  /** The value's `data` (u128 decimal); absent when an unattested write's value is no AttestedData. */
  data?: string;
  /** The value's `attestation_timestamp` (u128 decimal). */
  attestationTimestamp?: string;
  /** The key scheme of the program is not established (AttestedDataLayout.uncertain): never judged. */
  uncertain?: true;
}

/** The fields of a value of the attested-data mapping. */
export const ATTESTED_DATA_FIELDS = ['data', 'attestation_timestamp'] as const;

/** `123u128` for 123n. */
export const u128Literal = (v: bigint | string): string => `${v}u128`;

/** A u128 key literal in its canonical form (no leading zeros, no whitespace); undefined when it is none. */
export function canonicalU128Literal(text: string): string | undefined {
  const m = /^\s*([0-9]+)u128\s*$/.exec(text);
  if (!m) return undefined;
  const v = BigInt(m[1]!);
  return v < 1n << 128n ? u128Literal(v) : undefined;
}

/**
 * Where an update of one function stores its requests, as its program's layout says: the program
 * and mapping, which requests (RequestLayout), and whether the key scheme is uncertain. Plain data:
 * it travels with the update to a verification worker, which computes the keys (requestKeysOf)
 * beside the verdict.
 */
export interface UpdateWriteSpec {
  program: string;
  mapping: string;
  requests: RequestLayout;
  uncertain?: true;
}

/** The spec of an update of `fn` (report kind `kind`); undefined when the function stores nothing tracked. */
export function updateWriteSpec(layout: AttestedDataLayout | undefined, kind: UpdateKind, fn: string): UpdateWriteSpec | undefined {
  if (!layout) return undefined;
  const mapping = layout.mappings[kind];
  const chunks = Object.hasOwn(layout.functions, fn) ? layout.functions[fn] : undefined;
  if (mapping === undefined || chunks === undefined) return undefined;
  return { program: layout.program, mapping, requests: layout.key === 'userData' ? 'whole' : { chunks }, ...(layout.uncertain !== undefined ? { uncertain: true as const } : {}) };
}

/** The entries of the requests' keys (requestKeysOf of the userData bytes) under `spec`. */
export function writesOfKeys(spec: UpdateWriteSpec, keys: readonly RequestKeys[]): MappingWrite[] {
  const uncertain = spec.uncertain ? { uncertain: true as const } : {};
  const out: MappingWrite[] = [];
  for (const k of keys) {
    const value = { data: k.data, attestationTimestamp: k.attestationTimestamp };
    out.push(
      { program: spec.program, mapping: spec.mapping, key: u128Literal(k.requestHash), role: 'latest', ...value, ...uncertain },
      { program: spec.program, mapping: spec.mapping, key: u128Literal(k.timestampedRequestHash), role: 'historic', ...value, ...uncertain },
    );
  }
  return out;
}

/** The entries an update under `spec` with this userData text writes; [] when the userData cannot be read (its verification then fails and says why). */
export function writesOfText(spec: UpdateWriteSpec, userDataText: string): MappingWrite[] {
  let bytes: Uint8Array;
  try {
    bytes = parseUserData(userDataText);
  } catch {
    return [];
  }
  return writesOfKeys(spec, requestKeysOf(bytes, spec.requests));
}

/**
 * The entries an update of `fn` (report kind `kind`) with this userData text writes, as the
 * program's layout says; [] when the function stores nothing tracked or the userData cannot be read
 * (its verification then fails and says why).
 */
export function updateWrites(layout: AttestedDataLayout | undefined, kind: UpdateKind, fn: string, userDataText: string): MappingWrite[] {
  const spec = updateWriteSpec(layout, kind, fn);
  return spec ? writesOfText(spec, userDataText) : [];
}

/**
 * The entry an unattested write writes (`written` as recorded: Leo text of key and value) into
 * `program`'s mapping; undefined when its key is no u128 literal.
 */
export function unattestedWrite(program: string, written: { mapping: string; key: string; value: string }): MappingWrite | undefined {
  const key = canonicalU128Literal(written.key);
  if (key === undefined) return undefined;
  const w: MappingWrite = { program, mapping: written.mapping, key, role: 'unattested' };
  const value = parseAttestedData(written.value);
  if (value) {
    w.data = value.data;
    w.attestationTimestamp = value.attestationTimestamp;
  }
  return w;
}

/** `{ data: Xu128, attestation_timestamp: Yu128 }` (any whitespace) → decimals; undefined when it is not that. */
export function parseAttestedData(text: string): { data: string; attestationTimestamp: string } | undefined {
  try {
    const [data, ts] = parseLeoU128Struct(text, ATTESTED_DATA_FIELDS, 'AttestedData');
    return { data: data!.toString(), attestationTimestamp: ts!.toString() };
  } catch {
    return undefined;
  }
}
