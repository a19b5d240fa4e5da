/**
 * The JSON schema of config.json. Keys of the user's spec (`port`, `useTls`, `tlsKey`, `tlsCert`,
 * the kinds' targets `uniqueIdTarget` and `pcrValuesTarget`, `liveCheck`) plus the verifier's own
 * settings. Each report kind brings its target key and its liveCheck mapping key (the kind's
 * `target`, src/verify/kinds). Unknown keys are errors: a misspelt key must never silently fall
 * back to a default.
 */
import { PLATFORM_TCB_STATUSES, type TcbStatus } from '../attestation/typeA/tcbStatus.js';
import { ledgerProgramsSchema, type LedgerProgramsSetting } from '../ledger/programsConfig.js';
import { KINDS, REPORT_TYPES, type ReportType } from '../verify/kinds/index.js';

/** The TCB status vocabulary of the typeA verification (one list, attestation/typeA/tcbStatus.ts). */
export const TCB_STATUSES = PLATFORM_TCB_STATUSES;
export type TcbStatusName = TcbStatus;

/** Intel's Provisioning Certification Service, API v4. */
export const DEFAULT_PCCS_URL = 'https://api.trustedservices.intel.com/sgx/certification/v4/';

export const configSchema = {
  $id: 'config.json',
  type: 'object',
  additionalProperties: false,
  required: ['port', 'liveCheck'],
  properties: {
    $schema: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string', minLength: 1, default: '0.0.0.0' },
    useTls: { type: 'boolean', default: false },
    tlsKey: { type: 'string', minLength: 1 },
    tlsCert: { type: 'string', minLength: 1 },
    // One target key per report kind (uniqueIdTarget, pcrValuesTarget).
    ...Object.fromEntries(KINDS.map((k) => [k.target.configKey, k.target.configSchema])),
    // Other builds accepted beside the targets: each one kind's target key and its source.
    acceptedBuilds: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source'],
        properties: {
          source: { type: 'string', minLength: 1 },
          ...Object.fromEntries(KINDS.map((k) => [k.target.configKey, k.target.configSchema])),
        },
      },
    },
    liveCheck: {
      type: 'object',
      additionalProperties: false,
      required: ['skip'],
      properties: {
        skip: { type: 'boolean' },
        apiBaseUrl: { type: 'string', format: 'uri', pattern: '^https?://' },
        contractName: { type: 'string', pattern: '^[a-z][a-z0-9_]*(\\.aleo)?$' },
        // The ledger mapping of each report kind's target (uniqueIdMapping, pcrValuesMapping).
        ...Object.fromEntries(KINDS.map((k) => [k.target.ledger.mappingKey, { type: 'string', pattern: '^[a-z][a-z0-9_]*$', default: k.target.ledger.defaultMapping }])),
        timeoutMs: { type: 'integer', minimum: 100, maximum: 600000, default: 30000 },
        apiKeyHeader: {
          type: 'string',
          pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$',
          default: 'X-API-Key',
          description: "The header that carries the ledger node's API key: the value of the environment variable LEDGER_NODE_API_KEY, when set",
        },
      },
      if: { properties: { skip: { const: false } } },
      then: { required: ['skip', 'apiBaseUrl', 'contractName'] },
    },
    pccsUrl: { type: 'string', nullable: true, format: 'uri', pattern: '^https?://', default: DEFAULT_PCCS_URL },
    pccsProbeMaxAgeMs: { type: 'integer', minimum: 1000, maximum: 3600000, default: 30000 },
    pccsProbeTimeoutMs: { type: 'integer', minimum: 100, maximum: 60000, default: 5000 },
    pccsCircuitCooldownMs: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 5000,
      description: 'After a PCCS request without answer (timeout, connection failure) cold typeA requests fail at once (unverifiable) for this long; then one request probes the PCCS',
    },
    pccsCircuitMaxCooldownMs: {
      type: 'integer',
      minimum: 100,
      maximum: 86400000,
      default: 120000,
      description: 'Each failed probe doubles the cool-down, up to this (at least pccsCircuitCooldownMs)',
    },
    collateralDir: { type: 'string', minLength: 1 },
    trustedRoots: {
      type: 'object',
      additionalProperties: false,
      // One key per report kind (src/verify/kinds).
      properties: Object.fromEntries(REPORT_TYPES.map((id) => [id, { type: 'string', minLength: 1 }])),
      default: {},
    },
    acceptedTcbStatuses: {
      type: 'array',
      items: { type: 'string', enum: [...TCB_STATUSES] },
      minItems: 1,
      uniqueItems: true,
      default: ['UpToDate', 'SWHardeningNeeded'],
    },
    acceptedAdvisories: {
      type: 'array',
      items: { type: 'string', pattern: '^INTEL-SA-[0-9]{4,}$' },
      uniqueItems: true,
    },
    allowDebugEnclaves: { type: 'boolean', default: false },
    workers: { type: 'integer', minimum: 0, maximum: 256 },
    maxQueue: { type: 'integer', minimum: 1, maximum: 100000, default: 512 },
    taskTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000, default: 30000 },
    reproducibleBuildScript: { type: 'string', minLength: 1, default: './get-enclave-id.sh' },
    reproducibleBuildTimeoutMs: { type: 'integer', minimum: 1000, default: 7_200_000 },
    verificationTime: { type: 'string', format: 'date-time' },
    ledgerPrograms: ledgerProgramsSchema,
    watch: {
      type: 'object',
      description: 'The ledger watcher: follows liveCheck.apiBaseUrl and stores every oracle update it verified (README "Ledger")',
      additionalProperties: false,
      required: ['enabled'],
      properties: {
        enabled: { type: 'boolean' },
        fromHeight: { type: 'integer', minimum: 0, default: 0 },
        pollIntervalMs: { type: 'integer', minimum: 100, maximum: 3600000, default: 10000 },
        database: { type: 'string', minLength: 1 },
        batchBlocks: {
          type: 'integer',
          minimum: 1,
          maximum: 160,
          description: "Blocks per node request and per stored range, at most the block source's (160 for /blocks/transactions, 50 for /blocks); default: the block source's",
        },
        blockSource: {
          type: 'string',
          enum: ['auto', 'blocks', 'transactions'],
          default: 'auto',
          description: 'Route blocks are read from: transactions (/blocks/transactions, no authority), blocks (/blocks, whole blocks), auto: the first when the node serves it (GET /ledger/status says which)',
        },
        rps: { type: 'number', exclusiveMinimum: 0, default: 5 },
        retryIntervalMs: {
          type: 'integer',
          minimum: 100,
          maximum: 86400000,
          default: 300000,
          description: 'Delay before an unverifiable update (PCCS down, collateral missing) is verified again; doubles per attempt up to 64 ×',
        },
        leaseTtlMs: {
          type: 'integer',
          minimum: 1000,
          maximum: 3600000,
          default: 30000,
          description: 'The watcher holds a lease on its store, renewed every third of this; a lease not renewed for this long (its holder died) is taken over',
        },
        mappingKeysPerPoll: {
          type: 'integer',
          minimum: 0,
          maximum: 10000,
          default: 20,
          description: 'Mapping cross-check: keys of the oracle data mapping read from the node per poll once the scan reached the tip (0: no cross-check); each read is one node request within rps',
        },
      },
      if: { properties: { enabled: { const: true } } },
      then: { required: ['enabled', 'database'] },
    },
    headersTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, default: 10000, description: 'A request whose request line and headers are not complete after this long is answered 408 and closed' },
    requestTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, default: 10000, description: 'A request not complete (headers and body) after this long is answered 408 and closed; at least headersTimeoutMs' },
    shutdownGraceMs: { type: 'integer', minimum: 1000, maximum: 3600000, default: 20000, description: 'SIGTERM/SIGINT: the process answers what is in flight and exits within this time; more than requestTimeoutMs' },
    logLevel: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    bodyLimit: { type: 'integer', minimum: 16384, maximum: 16777216, default: 262144 },
    maxInflightBytes: {
      type: 'integer',
      minimum: 16384,
      maximum: 1073741824,
      default: 2097152,
      description: 'Most request body bytes (Content-Length; bodyLimit when unknown) of requests being handled at once; a request beyond it is answered 503 with Retry-After before its body is read',
    },
    ledgerLookupQueue: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 100,
      description: 'Most GET /ledger/transactions/{id} lookups waiting for the ledger node (its rate-limit slot or its answer) at once; more are answered 503 with Retry-After',
    },
  },
  if: { properties: { useTls: { const: true } }, required: ['useTls'] },
  then: { required: ['tlsKey', 'tlsCert'] },
} as const;

/** config.json as written by the user, after defaults were applied by the schema validator. */
export interface RawConfig {
  port: number;
  host: string;
  useTls: boolean;
  tlsKey?: string;
  tlsCert?: string;
  // Each report kind's target is under its configKey (uniqueIdTarget, pcrValuesTarget), as written.
  /** Other accepted builds: `source` and one kind's target key, as written. */
  acceptedBuilds: Array<{ source: string } & Record<string, unknown>>;
  liveCheck: LiveCheckSettings;
  /** null: no PCCS (typeA from collateralDir alone). */
  pccsUrl: string | null;
  pccsProbeMaxAgeMs: number;
  pccsProbeTimeoutMs: number;
  pccsCircuitCooldownMs: number;
  pccsCircuitMaxCooldownMs: number;
  collateralDir?: string;
  trustedRoots: Partial<Record<ReportType, string>>;
  acceptedTcbStatuses: TcbStatusName[];
  acceptedAdvisories?: string[];
  allowDebugEnclaves: boolean;
  workers?: number;
  maxQueue: number;
  taskTimeoutMs: number;
  reproducibleBuildScript: string;
  reproducibleBuildTimeoutMs: number;
  verificationTime?: string;
  ledgerPrograms?: LedgerProgramsSetting;
  watch?: WatchSettings;
  logLevel: string;
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  shutdownGraceMs: number;
  maxInflightBytes: number;
  ledgerLookupQueue: number;
}

/** The `liveCheck` key after defaults. */
export interface LiveCheckSettings {
  skip: boolean;
  apiBaseUrl?: string;
  contractName?: string;
  timeoutMs: number;
  /** The header carrying LEDGER_NODE_API_KEY (when that environment variable is set). */
  apiKeyHeader: string;
  /** Each report kind's ledger mapping under its mappingKey (uniqueIdMapping, pcrValuesMapping). */
  readonly [mappingKey: string]: unknown;
}

/** The `watch` key after defaults (`database` as written; Config holds it resolved). */
export interface WatchSettings {
  enabled: boolean;
  fromHeight: number;
  pollIntervalMs: number;
  database?: string;
  /** Blocks per node request and per stored range (≤ the block source's size; default that size). */
  batchBlocks?: number;
  /** Route blocks are read from (auto: /blocks/transactions when served). */
  blockSource: 'auto' | 'blocks' | 'transactions';
  /** Node requests per second (retries included). */
  rps: number;
  /** Delay before an unverifiable update is re-verified (doubling per attempt, at most 64 ×). */
  retryIntervalMs: number;
  /** Lifetime of the watcher's lease on its store without a heartbeat (one watcher per store). */
  leaseTtlMs: number;
  /** Mapping cross-check: keys read per poll at the tip (0: none). */
  mappingKeysPerPoll: number;
}
