/**
 * Reads config.json, validates it against the schema (applying defaults) and resolves it into the
 * typed, normalised `Config` the rest of the service uses. All problems are reported at once: one
 * VerifierError whose message has one line per invalid value (the key, the value and what was
 * expected), schema violations and target checks alike.
 */
import { definedPrograms, namedPrograms, registryOf } from '../ledger/programsConfig.js';
import { normaliseProgramId, type OracleProgram } from '../ledger/programs.js';
import { jsonNestingDepth, readSmallFile } from '../smallFile.js';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { isVerifierError, VerifierError } from '../errors.js';
import { aTypeName } from '../typeNames.js';
import type { ConfigCode } from './errors.js';
import { DEFAULT_TRUST_ROOTS } from './defaultTrustRoots.js';
import { publicUrl } from '../upstream/publicUrl.js';
import { LEDGER_NODE_API_KEY_ENV, PCCS_API_KEY_ENV, PCCS_API_KEY_HEADER } from '../upstream/credentials.js';
import { KINDS, REPORT_TYPES, type ReportType, type TargetValues } from '../verify/kinds/index.js';
import type { ProblemCheck } from '../verify/kinds/types.js';
import type { AcceptedBuild } from '../verify/policy.js';
import { configSchema, type RawConfig, type TcbStatusName, type WatchSettings } from './schema.js';

export interface Config {
  /** Absolute path of the file the configuration was read from ('' when built from an object). */
  file: string;
  port: number;
  host: string;
  tls?: { keyFile: string; certFile: string };
  /**
   * Each report kind's target as configured (its `target.configKey`), by kind id; a kind's is
   * absent when not configured or incomplete: then the reproducible build supplies them all.
   */
  targets: Partial<TargetValues>;
  liveCheck: RawConfig['liveCheck'];
  /** PCCS or Intel PCS API v4 base, ending in '/'; absent when config.json sets it to null (typeA from collateralDir alone). */
  pccsUrl?: string;
  /** GET /status/pccs probes the PCCS when its last observed request is older than this. */
  pccsProbeMaxAgeMs: number;
  /** Time limit of that probe. */
  pccsProbeTimeoutMs: number;
  /** First cool-down of the PCCS circuit breaker (cold typeA requests fail at once meanwhile). */
  pccsCircuitCooldownMs: number;
  /** Cap of the doubling cool-down (≥ pccsCircuitCooldownMs). */
  pccsCircuitMaxCooldownMs: number;
  /** Absolute path of a typeA collateral directory (`oracle-verifier collateral fetch`); the PCCS serves what it lacks. */
  collateralDir?: string;
  /** Absolute path of a typeA collateral archive (docs/history.md): ledger updates are then judged at their block's time. */
  collateralArchive?: string;
  /** Which TCB evaluation is in force at a time (evaluationInForce.ts). */
  tcbUpdatePolicy: 'standard' | 'early';
  /** Trust anchor file of every report kind (the bundled one unless configured). */
  trustedRoots: Record<ReportType, string>;
  /** Measurements accepted beside the targets (config `acceptedBuilds`), by kind id, each with its source. */
  acceptedBuilds: Partial<Record<ReportType, AcceptedBuild[]>>;
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
  /** Each verification worker's V8 young generation at most (MiB): the pool's resourceLimits. */
  workerYoungGenerationMb: number;
  reproducibleBuildScript: string;
  reproducibleBuildTimeoutMs: number;
  /** Fixed typeA verification time (epoch ms), for audits of history and for expired vectors. */
  verificationTime?: number;
  /** Oracle programs the ledger scans follow (watcher, CLI reverify); absent: every known program. */
  ledgerPrograms?: string[];
  /** Programs config.json defines in ledgerPrograms (added to the built-in registry, src/ledger/programs.ts). */
  definedPrograms?: OracleProgram[];
  /** The ledger watcher (present when `watch.enabled`); `database` is an absolute path. */
  watch?: WatchSettings & { database: string };
  logLevel: string;
  bodyLimit: number;
  /** Most request body bytes in requests being handled at once (503 with Retry-After beyond). */
  maxInflightBytes: number;
  /** Most of those bytes one remote address holds at once (default half of maxInflightBytes). */
  maxInflightBytesPerClient: number;
  /** Most connections open at once; more are closed as they open. */
  maxConnections: number;
  /** Most connections open at once from one remote address (default an eighth of maxConnections). */
  maxConnectionsPerClient: number;
  /** A request arriving with this many earlier ones of its connection unanswered closes the connection. */
  maxPipelinedRequests: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Most transaction lookups waiting for the ledger node at once (503 with Retry-After beyond). */
  ledgerLookupQueue: number;
  /** A request whose request line and headers are incomplete after this long is answered 408. */
  headersTimeoutMs: number;
  /** A request (headers and body) incomplete after this long is answered 408. */
  requestTimeoutMs: number;
  /** SIGTERM/SIGINT: what is in flight is answered (upstream requests abandoned) and the process exits within this time. */
  shutdownGraceMs: number;
}

/**
 * The config keys that hold a URL, and the supported way to pass each one's credential: never in
 * the URL (userinfo is refused; a query is sent but never shown, src/upstream/publicUrl.ts).
 */
export const URL_KEYS: Readonly<Record<string, string>> = {
  pccsUrl: `pass an Intel PCS subscription key in the environment variable ${PCCS_API_KEY_ENV} (sent as the ${PCCS_API_KEY_HEADER} header)`,
  'liveCheck.apiBaseUrl': `pass the ledger node's API key in the environment variable ${LEDGER_NODE_API_KEY_ENV} (sent in the header named by liveCheck.apiKeyHeader, default X-API-Key)`,
  'watch.confirmWith': 'the confirming API is read without credentials',
};

/** A URL key's value as a message may show it: without userinfo and query. */
function shownUrl(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v);
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    // Not a URL: what could be a credential (before an @, after a ?) is not shown either.
    return JSON.stringify(v.replace(/^[^/?#]*@/, '…@').replace(/\?.*$/s, '?…'));
  }
  const hidden = u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '';
  return hidden ? `${JSON.stringify(publicUrl(v))} (credentials and query not shown)` : JSON.stringify(v);
}

/** Value at a dotted key of the raw config. */
function dotted(raw: unknown, key: string): unknown {
  let cur = raw;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
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
      return `expected ${aTypeName(p.type)}`;
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

function describeErrors(errors: readonly ErrorObject[], data: unknown): string[] {
  const lines = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue; // its `then` branch reports the concrete missing key
    const key = keyOf(e);
    const pointer = e.keyword === 'additionalProperties' || e.keyword === 'required' ? `${e.instancePath}/${key.split('.').pop()}` : e.instancePath;
    const v = e.keyword === 'required' ? undefined : valueAt(data, pointer);
    const shown = v === undefined ? '(absent)' : URL_KEYS[key] !== undefined ? shownUrl(v) : JSON.stringify(v);
    lines.add(`config: ${key} = ${shown}: ${expected(e)}`);
  }
  return [...lines];
}

/**
 * The problems of one config, all of them: schema violations and the checks the schema cannot
 * express. Thrown once, one line per problem; the code is CONFIG_BAD_TARGET when every problem is a
 * target's, else CONFIG_INVALID.
 */
class Problems {
  private readonly lines: string[] = [];
  private readonly codes = new Set<ConfigCode>();

  add(code: ConfigCode, line: string): void {
    this.codes.add(code);
    this.lines.push(line);
  }

  /** Runs a check; a VerifierError it throws becomes a problem and the result is undefined. */
  check<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      if (!isVerifierError(e)) throw e;
      this.add(e.code as ConfigCode, e.message);
      return undefined;
    }
  }

  /** Whether a problem line starts with `prefix`. */
  has(prefix: string): boolean {
    return this.lines.some((l) => l.startsWith(prefix));
  }

  throwIfAny(): void {
    if (!this.lines.length) return;
    fail(this.codes.size === 1 && this.codes.has('CONFIG_BAD_TARGET') ? 'CONFIG_BAD_TARGET' : 'CONFIG_INVALID', this.lines.join('\n'));
  }
}

/**
 * `acceptedBuilds`: each entry names exactly one kind's target key (checked as that key is) and its
 * source; problems name the entry (`acceptedBuilds.1.pcrValuesTarget[0] = …`).
 */
function acceptedBuildsOf(raw: RawConfig, problems: Problems): Partial<Record<ReportType, AcceptedBuild[]>> {
  const out: Partial<Record<ReportType, AcceptedBuild[]>> = {};
  if (!Array.isArray(raw.acceptedBuilds)) return out;
  raw.acceptedBuilds.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object') return;
    const kinds = KINDS.filter((k) => k.target.configKey in entry);
    if (kinds.length !== 1) {
      problems.add('CONFIG_INVALID', `config: acceptedBuilds.${i}: name exactly one of ${KINDS.map((k) => k.target.configKey).join(', ')} (it names ${kinds.length ? kinds.map((k) => k.target.configKey).join(' and ') : 'none'})`);
      return;
    }
    const kind = kinds[0]!;
    const named: ProblemCheck = (fn) =>
      problems.check(() => {
        try {
          return fn();
        } catch (e) {
          if (!isVerifierError(e)) throw e;
          throw new VerifierError(e.code, e.message.replace(/^config: /, `config: acceptedBuilds.${i}.`));
        }
      });
    const value = kind.target.fromConfig((entry as Record<string, unknown>)[kind.target.configKey], raw, named);
    if (value === undefined) {
      if (!problems.has(`config: acceptedBuilds.${i}.`)) problems.add('CONFIG_INVALID', `config: acceptedBuilds.${i}.${kind.target.configKey}: expected a complete value (${kind.target.required})`);
      return;
    }
    if (typeof entry.source !== 'string') return; // the schema names it
    if (entry.source.trim() === '') {
      problems.add('CONFIG_INVALID', `config: acceptedBuilds.${i}.source = ${JSON.stringify(entry.source)}: expected where this measurement comes from`);
      return;
    }
    (out[kind.id] ??= []).push({ value, source: entry.source });
  });
  return out;
}

/** Validates a parsed config object; `baseDir` resolves relative paths (the config file's directory). */
export function resolveConfig(input: unknown, baseDir: string, file = ''): Config {
  const data: unknown = structuredClone(input);
  const problems = new Problems();
  const schemaErrors = validate(data) ? [] : [...(validate.errors ?? [])];
  for (const line of describeErrors(schemaErrors, data)) problems.add('CONFIG_INVALID', line);
  // The checks below also run when the schema failed, on the values that have the right type.
  const raw = data as RawConfig;

  const targets: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const value = kind.target.fromConfig((raw as unknown as Record<string, unknown>)[kind.target.configKey], raw, problems.check.bind(problems));
    if (value !== undefined) targets[kind.id] = value;
  }

  const acceptedBuilds = acceptedBuildsOf(raw, problems);

  let verificationTime: number | undefined;
  if (typeof raw.verificationTime === 'string') {
    verificationTime = Date.parse(raw.verificationTime);
    if (!Number.isFinite(verificationTime) && !schemaErrors.some((e) => e.instancePath === '/verificationTime')) {
      problems.add('CONFIG_INVALID', `config: verificationTime = ${JSON.stringify(raw.verificationTime)}: expected an ISO-8601 date-time`);
    }
  }
  if (raw.watch?.enabled === true && raw.liveCheck && typeof raw.liveCheck === 'object' && raw.liveCheck.apiBaseUrl === undefined) {
    problems.add('CONFIG_INVALID', 'config: liveCheck.apiBaseUrl = (absent): the ledger watcher (watch.enabled) follows this ledger node; set it');
  }
  if (raw.watch?.confirmWith !== undefined && raw.watch.proveInclusion !== true) {
    problems.add('CONFIG_INVALID', `config: watch.confirmWith = ${shownUrl(raw.watch.confirmWith)}: it confirms the block hashes of inclusion proofs; set watch.proveInclusion to true (or remove it)`);
  }
  for (const [key, how] of Object.entries(URL_KEYS)) {
    const v = dotted(raw, key);
    if (typeof v !== 'string') continue;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      continue; // the schema names it
    }
    if (u.username !== '' || u.password !== '') {
      problems.add('CONFIG_INVALID', `config: ${key} = ${shownUrl(v)}: a URL must not hold credentials (user:password@); ${how}`);
    }
  }
  const timeoutsValid = !schemaErrors.some((e) => e.instancePath === '/headersTimeoutMs' || e.instancePath === '/requestTimeoutMs');
  if (timeoutsValid && typeof raw.headersTimeoutMs === 'number' && typeof raw.requestTimeoutMs === 'number' && raw.headersTimeoutMs > raw.requestTimeoutMs) {
    problems.add('CONFIG_INVALID', `config: headersTimeoutMs = ${raw.headersTimeoutMs}: expected a number ≤ requestTimeoutMs (${raw.requestTimeoutMs}): the headers are part of the request`);
  }
  const graceValid = timeoutsValid && !schemaErrors.some((e) => e.instancePath === '/shutdownGraceMs');
  if (graceValid && typeof raw.shutdownGraceMs === 'number' && typeof raw.requestTimeoutMs === 'number' && raw.shutdownGraceMs <= raw.requestTimeoutMs) {
    problems.add('CONFIG_INVALID', `config: shutdownGraceMs = ${raw.shutdownGraceMs}: expected a number > requestTimeoutMs (${raw.requestTimeoutMs}): a request still arriving at shutdown may take that long`);
  }
  if (raw.pccsUrl === null && raw.collateralDir === undefined) {
    problems.add('CONFIG_INVALID', 'config: pccsUrl = null: without a PCCS typeA needs a collateral directory; set collateralDir, or a PCCS URL');
  }
  if (Array.isArray(raw.ledgerPrograms) && !schemaErrors.some((e) => e.instancePath.startsWith('/ledgerPrograms'))) {
    const registry = registryOf(raw.ledgerPrograms);
    const seen = new Set<string>();
    raw.ledgerPrograms.forEach((e, i) => {
      const id = normaliseProgramId(typeof e === 'string' ? e : e.id);
      if (seen.has(id)) problems.add('CONFIG_INVALID', `config: ledgerPrograms.${i} = ${JSON.stringify(id)}: named twice`);
      seen.add(id);
      if (!registry.program(id)) {
        problems.add('CONFIG_INVALID', `config: ledgerPrograms.${i} = ${JSON.stringify(e)}: not a known oracle program (known: ${registry.ids.join(', ')}); define it here as { id, functions }`);
      }
      if (typeof e !== 'string' && e.attestedData) {
        for (const fn of Object.keys(e.attestedData.functions)) {
          const role = e.functions[fn];
          if (role?.role !== 'update') problems.add('CONFIG_INVALID', `config: ledgerPrograms.${i}.attestedData.functions.${fn}: not an update function of ${id} (its functions name it ${role ? `with role ${role.role}` : 'not at all'})`);
          else if (e.attestedData.mappings[role.kind] === undefined) problems.add('CONFIG_INVALID', `config: ledgerPrograms.${i}.attestedData.mappings: no mapping for ${role.kind}, the kind of ${fn}`);
        }
      }
    });
  }
  problems.throwIfAny();

  const config: Config = {
    file,
    port: raw.port,
    host: raw.host,
    targets: targets as Partial<TargetValues>,
    liveCheck: raw.liveCheck,
    pccsProbeMaxAgeMs: raw.pccsProbeMaxAgeMs,
    pccsProbeTimeoutMs: raw.pccsProbeTimeoutMs,
    pccsCircuitCooldownMs: raw.pccsCircuitCooldownMs,
    pccsCircuitMaxCooldownMs: Math.max(raw.pccsCircuitMaxCooldownMs, raw.pccsCircuitCooldownMs),
    trustedRoots: Object.fromEntries(
      REPORT_TYPES.map((id) => {
        const file = raw.trustedRoots[id];
        return [id, file ? resolve(baseDir, file) : DEFAULT_TRUST_ROOTS[id]];
      }),
    ) as Record<ReportType, string>,
    acceptedBuilds,
    acceptedTcbStatuses: raw.acceptedTcbStatuses,
    allowDebugEnclaves: raw.allowDebugEnclaves,
    tcbUpdatePolicy: raw.tcbUpdatePolicy,
    workers: raw.workers ?? availableParallelism(),
    maxQueue: raw.maxQueue,
    taskTimeoutMs: raw.taskTimeoutMs,
    workerYoungGenerationMb: raw.workerYoungGenerationMb,
    reproducibleBuildScript: resolve(baseDir, raw.reproducibleBuildScript),
    reproducibleBuildTimeoutMs: raw.reproducibleBuildTimeoutMs,
    logLevel: raw.logLevel,
    bodyLimit: raw.bodyLimit,
    headersTimeoutMs: raw.headersTimeoutMs,
    requestTimeoutMs: raw.requestTimeoutMs,
    shutdownGraceMs: raw.shutdownGraceMs,
    maxInflightBytes: raw.maxInflightBytes,
    maxInflightBytesPerClient: Math.min(raw.maxInflightBytesPerClient ?? Math.floor(raw.maxInflightBytes / 2), raw.maxInflightBytes),
    maxConnections: raw.maxConnections,
    maxConnectionsPerClient: Math.min(raw.maxConnectionsPerClient ?? Math.max(1, Math.floor(raw.maxConnections / 8)), raw.maxConnections),
    maxPipelinedRequests: raw.maxPipelinedRequests,
    keepAliveTimeoutMs: raw.keepAliveTimeoutMs,
    ledgerLookupQueue: raw.ledgerLookupQueue,
  };
  if (raw.useTls) config.tls = { keyFile: resolve(baseDir, raw.tlsKey!), certFile: resolve(baseDir, raw.tlsCert!) };
  if (verificationTime !== undefined) config.verificationTime = verificationTime;
  if (raw.pccsUrl !== null) config.pccsUrl = withTrailingSlash(raw.pccsUrl);
  if (raw.collateralDir !== undefined) config.collateralDir = resolve(baseDir, raw.collateralDir);
  if (raw.collateralArchive !== undefined) config.collateralArchive = resolve(baseDir, raw.collateralArchive);
  if (raw.acceptedAdvisories !== undefined) config.acceptedAdvisories = raw.acceptedAdvisories;
  if (raw.ledgerPrograms !== undefined) {
    config.ledgerPrograms = namedPrograms(raw.ledgerPrograms);
    config.definedPrograms = definedPrograms(raw.ledgerPrograms);
  }
  if (raw.watch?.enabled) config.watch = { ...raw.watch, database: resolve(baseDir, raw.watch.database!) };
  return config;
}

/** The URL with its path ending in '/' (a query stays where it is). */
function withTrailingSlash(url: string): string {
  const u = new URL(url);
  if (!u.pathname.endsWith('/')) u.pathname = `${u.pathname}/`;
  return u.toString();
}

/** The most bytes a config file (and each file it names: trust roots, TLS key and certificate) may have. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
/** The deepest nesting of a config's JSON (its schema needs 5). */
const MAX_CONFIG_DEPTH = 32;

/**
 * Reads and resolves a config file. Relative paths inside it are relative to its directory.
 * `defaults` fill top-level keys the file omits (the CLI needs no port and no live check).
 */
export function loadConfig(path: string, defaults?: Record<string, unknown>): Config {
  const file = resolve(path);
  const read = readSmallFile(file, MAX_CONFIG_FILE_BYTES);
  if (!read.ok) fail('CONFIG_NOT_FOUND', `config: cannot read ${file}: ${read.errno ?? read.why}`);
  const text = read.bytes.toString('utf8');
  const depth = jsonNestingDepth(text);
  if (depth > MAX_CONFIG_DEPTH) fail('CONFIG_NOT_JSON', `config: ${file} nests ${depth} levels deep; a config is at most ${MAX_CONFIG_DEPTH} deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    fail('CONFIG_NOT_JSON', `config: ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (defaults !== undefined) {
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) fail('CONFIG_INVALID', `config: ${file} is not a JSON object`);
    parsed = { ...defaults, ...parsed };
  }
  return resolveConfig(parsed, dirname(file), file);
}

/** Every kind's target when the config holds them all, else undefined (the reproducible build must supply them). */
export function configuredTargets(c: Config): TargetValues | undefined {
  return REPORT_TYPES.every((id) => c.targets[id] !== undefined) ? (c.targets as TargetValues) : undefined;
}
