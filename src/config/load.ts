/**
 * Reads config.json, validates it against the schema (applying defaults) and resolves it into the
 * typed, normalised `Config` the rest of the service uses. Every problem becomes a VerifierError
 * whose message has one line per invalid value: the key, the value and what was expected.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { VerifierError } from '../errors.js';
import type { ConfigCode } from './errors.js';
import { DEFAULT_TRUST_ROOTS } from './packageRoot.js';
import { configSchema, type RawConfig, type TcbStatusName } from './schema.js';
import { decodeTarget, isAllZero } from './targets.js';

export interface Config {
  /** Absolute path of the file the configuration was read from ('' when built from an object). */
  file: string;
  port: number;
  host: string;
  tls?: { keyFile: string; certFile: string };
  /** Targets as configured (possibly incomplete: then the reproducible build supplies them). */
  uniqueIdTarget?: Uint8Array;
  pcrValuesTarget?: Uint8Array[];
  liveCheck: RawConfig['liveCheck'];
  pccsUrl: string;
  trustedRoots: { typeA: string; typeB: string };
  acceptedTcbStatuses: TcbStatusName[];
  /** When set: a TCB status other than UpToDate also needs every advisory of its level listed here. */
  acceptedAdvisories?: string[];
  allowDebugEnclaves: boolean;
  /** Verification worker threads; 0 verifies on the main thread. */
  workers: number;
  /** Verifications waiting for a worker beyond which requests are refused with 503. */
  maxQueue: number;
  /** Time limit of one verification task in a worker. */
  taskTimeoutMs: number;
  reproducibleBuildScript: string;
  reproducibleBuildTimeoutMs: number;
  /** Fixed typeA verification time (epoch ms), for audits of history and for expired vectors. */
  verificationTime?: number;
  /** Oracle programs the ledger scans follow (CLI reverify); absent: every known program. */
  ledgerPrograms?: string[];
  logLevel: string;
  bodyLimit: number;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false, allowUnionTypes: false });
addFormats(ajv);
const validate = ajv.compile<RawConfig>(configSchema);

function fail(code: ConfigCode, message: string): never {
  throw new VerifierError<ConfigCode>(code, message);
}

function keyOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    return path ? `${path}.${extra}` : extra;
  }
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    return path ? `${path}.${missing}` : missing;
  }
  return path || '(root)';
}

function valueAt(data: unknown, pointer: string): unknown {
  let cur = data;
  for (const part of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function expected(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return 'unknown key (not part of the configuration schema; check its spelling)';
    case 'required':
      return 'missing required key';
    case 'type':
      return `expected ${String(p.type)}`;
    case 'enum':
      return `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
      return `expected a number ≥ ${String(p.limit)}`;
    case 'maximum':
      return `expected a number ≤ ${String(p.limit)}`;
    case 'minLength':
      return 'expected a non-empty string';
    case 'minItems':
      return `expected at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `expected at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return 'expected no duplicate items';
    case 'format':
      return p.format === 'date-time' ? 'expected an ISO-8601 date-time such as 2026-09-23T00:00:00Z' : `expected a valid ${String(p.format)}`;
    case 'pattern':
      return `expected a value matching ${String(p.pattern)}`;
    default:
      return e.message ?? e.keyword;
  }
}

function describeErrors(errors: readonly ErrorObject[], data: unknown): string {
  const lines = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue; // its `then` branch reports the concrete missing key
    const key = keyOf(e);
    const pointer = e.keyword === 'additionalProperties' || e.keyword === 'required' ? `${e.instancePath}/${key.split('.').pop()}` : e.instancePath;
    const v = e.keyword === 'required' ? undefined : valueAt(data, pointer);
    const shown = v === undefined ? '(absent)' : JSON.stringify(v);
    lines.add(`config: ${key} = ${shown}: ${expected(e)}`);
  }
  return [...lines].join('\n');
}

/** Validates a parsed config object; `baseDir` resolves relative paths (the config file's directory). */
export function resolveConfig(input: unknown, baseDir: string, file = ''): Config {
  const data: unknown = structuredClone(input);
  if (!validate(data)) fail('CONFIG_INVALID', describeErrors(validate.errors ?? [], data));
  const raw = data;

  let uniqueIdTarget: Uint8Array | undefined;
  if (raw.uniqueIdTarget !== undefined && raw.uniqueIdTarget.trim() !== '') {
    uniqueIdTarget = decodeTarget('uniqueIdTarget', raw.uniqueIdTarget, 32);
    if (isAllZero(uniqueIdTarget)) fail('CONFIG_BAD_TARGET', `config: uniqueIdTarget = ${JSON.stringify(raw.uniqueIdTarget)}: expected a real measurement, not all zeros`);
  }
  let pcrValuesTarget: Uint8Array[] | undefined;
  if (raw.pcrValuesTarget !== undefined) {
    pcrValuesTarget = raw.pcrValuesTarget.map((v, i) => {
      const b = decodeTarget(`pcrValuesTarget[${i}]`, v, 48);
      if (i === 0 && isAllZero(b)) fail('CONFIG_BAD_TARGET', `config: pcrValuesTarget[0] = ${JSON.stringify(v)}: an all-zero PCR0 is a debug enclave; expected a production measurement`);
      return b;
    });
  }

  let verificationTime: number | undefined;
  if (raw.verificationTime !== undefined) {
    verificationTime = Date.parse(raw.verificationTime);
    if (!Number.isFinite(verificationTime)) fail('CONFIG_INVALID', `config: verificationTime = ${JSON.stringify(raw.verificationTime)}: expected an ISO-8601 date-time`);
  }

  const config: Config = {
    file,
    port: raw.port,
    host: raw.host,
    liveCheck: raw.liveCheck,
    pccsUrl: raw.pccsUrl.endsWith('/') ? raw.pccsUrl : `${raw.pccsUrl}/`,
    trustedRoots: {
      typeA: raw.trustedRoots.typeA ? resolve(baseDir, raw.trustedRoots.typeA) : DEFAULT_TRUST_ROOTS.typeA,
      typeB: raw.trustedRoots.typeB ? resolve(baseDir, raw.trustedRoots.typeB) : DEFAULT_TRUST_ROOTS.typeB,
    },
    acceptedTcbStatuses: raw.acceptedTcbStatuses,
    allowDebugEnclaves: raw.allowDebugEnclaves,
    workers: raw.workers ?? availableParallelism(),
    maxQueue: raw.maxQueue,
    taskTimeoutMs: raw.taskTimeoutMs,
    reproducibleBuildScript: resolve(baseDir, raw.reproducibleBuildScript),
    reproducibleBuildTimeoutMs: raw.reproducibleBuildTimeoutMs,
    logLevel: raw.logLevel,
    bodyLimit: raw.bodyLimit,
  };
  if (raw.useTls) config.tls = { keyFile: resolve(baseDir, raw.tlsKey!), certFile: resolve(baseDir, raw.tlsCert!) };
  if (uniqueIdTarget) config.uniqueIdTarget = uniqueIdTarget;
  if (pcrValuesTarget) config.pcrValuesTarget = pcrValuesTarget;
  if (verificationTime !== undefined) config.verificationTime = verificationTime;
  if (raw.acceptedAdvisories !== undefined) config.acceptedAdvisories = raw.acceptedAdvisories;
  if (raw.ledgerPrograms !== undefined) config.ledgerPrograms = raw.ledgerPrograms;
  return config;
}

/** Reads and resolves a config file. Relative paths inside it are relative to its directory. */
export function loadConfig(path: string): Config {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail('CONFIG_NOT_FOUND', `config: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    fail('CONFIG_NOT_JSON', `config: ${file} is not valid JSON: ${(e as Error).message}`);
  }
  return resolveConfig(parsed, dirname(file), file);
}

/** True when the targets are incomplete and the reproducible build must supply them. */
export function needsReproducibleBuild(c: Config): boolean {
  return c.uniqueIdTarget === undefined || c.pcrValuesTarget === undefined || c.pcrValuesTarget.length !== 3;
}
