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
    $schema: { type: 'string', description: 'Ignored: a JSON schema URL for editors' },
    port: { type: 'integer', minimum: 0, maximum: 65535, description: 'Listening port (0: any free port); --port and the environment variable PORT override it', examples: [8080] },
    host: { type: 'string', minLength: 1, default: '0.0.0.0', description: 'Listening address' },
    useTls: { type: 'boolean', default: false, description: 'Serve HTTPS (TLS ≥ 1.2) with tlsKey and tlsCert' },
    tlsKey: { type: 'string', minLength: 1, description: 'PEM private key file (with useTls; relative to the config file)' },
    tlsCert: { type: 'string', minLength: 1, description: 'PEM certificate file (with useTls; relative to the config file)' },
    // One target key per report kind (uniqueIdTarget, pcrValuesTarget).
    ...Object.fromEntries(KINDS.map((k) => [k.target.configKey, k.target.configSchema])),
    // Other builds accepted beside the targets: each one kind's target key and its source.
    acceptedBuilds: {
      type: 'array',
      default: [],
      description:
        'Further builds accepted beside the targets, one kind per entry: a report is valid when its measurement equals the target or one of these; listed in GET /info with their sources; the live check passes with a warning naming the source when the ledger holds one of them; errors name the entry (acceptedBuilds.0.pcrValuesTarget[1] = …)',
      examples: [[{ source: 'where it comes from', uniqueIdTarget: '<32 bytes, hex or base64>' }]],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source'],
        properties: {
          source: { type: 'string', minLength: 1, description: 'Where the measurement comes from (shown in /info and in the live check\'s warning)' },
          ...Object.fromEntries(KINDS.map((k) => [k.target.configKey, k.target.configSchema])),
        },
      },
    },
    liveCheck: {
      type: 'object',
      description: 'The ledger node and program: compared with the targets at startup (unless skip), read by GET /ledger/transactions/{id} and followed by the watcher',
      additionalProperties: false,
      required: ['skip'],
      properties: {
        skip: { type: 'boolean', description: 'When false, the targets are compared with the ledger program\'s mappings at startup (needs apiBaseUrl and contractName)' },
        apiBaseUrl: { type: 'string', format: 'uri', pattern: '^https?://', description: 'Ledger node REST API base, no credentials in it (LEDGER_NODE_API_KEY carries a key)', examples: ['https://api.explorer.provable.com/v1/mainnet'] },
        contractName: { type: 'string', pattern: '^[a-z][a-z0-9_]*(\\.aleo)?$', description: 'The oracle program whose mappings hold the targets (GET /info liveCheckProgram)', examples: ['official_oracle.aleo'] },
        // The ledger mapping of each report kind's target (uniqueIdMapping, pcrValuesMapping).
        ...Object.fromEntries(KINDS.map((k) => [k.target.ledger.mappingKey, { type: 'string', pattern: '^[a-z][a-z0-9_]*$', default: k.target.ledger.defaultMapping, description: `The mapping holding the ${k.id} target, read at key 0u8` }])),
        timeoutMs: { type: 'integer', minimum: 100, maximum: 600000, default: 30000, description: 'Per-request timeout of the live check' },
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
    pccsUrl: { type: 'string', nullable: true, format: 'uri', pattern: '^https?://', default: DEFAULT_PCCS_URL, description: 'PCCS or Intel PCS API v4 base for typeA collateral (PCCS_API_KEY carries a key); null: no PCCS at all (needs collateralDir)' },
    pccsProbeMaxAgeMs: { type: 'integer', minimum: 1000, maximum: 3600000, default: 30000, description: 'GET /status/pccs (and the verifier_pccs_up gauge) probes the PCCS when its last observed request is older than this' },
    pccsProbeTimeoutMs: { type: 'integer', minimum: 100, maximum: 60000, default: 5000, description: 'Time limit of that probe' },
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
    collateralDir: { type: 'string', minLength: 1, description: 'typeA collateral directory written by `oracle-verifier collateral fetch`: typeA verifies from it without a PCCS; pccsUrl serves only the pieces it lacks', examples: ['./collateral'] },
    collateralArchive: {
      type: 'string',
      minLength: 1,
      description:
        'typeA collateral archive (docs/history.md): when set, each ledger update (watcher, GET /ledger/transactions/{id}) is judged as it stood at its block\'s timestamp, under the TCB evaluation then in force, with today\'s status beside it, and its record carries blockTimestamp, judgedAsOf and evidence; unset: judged at one time (verificationTime, else now), and records carry none of them. With pccsUrl, the directory is created when missing and filled as it goes: every document the PCCS serves is kept, and what the archive lacks (the list of evaluation numbers, an evaluation\'s TCB info and QE identity by number, the CRLs) is asked for. Without a PCCS it must exist (`oracle-verifier collateral import`)',
      examples: ['./collateral-archive'],
    },
    tcbUpdatePolicy: {
      type: 'string',
      enum: ['standard', 'early'],
      default: 'standard',
      description: "Which TCB evaluation is in force at a time, judging history (collateralArchive): 'standard' (Intel PCS's default: an evaluation from 12 months after its TCB recovery event) or 'early' (from the recovery event's day)",
    },
    trustedRoots: {
      type: 'object',
      description: 'Trust anchors (PEM files) per report kind; unset: the bundled trust/intel-sgx-root-ca.pem and trust/aws-nitro-enclaves-root-g1.pem, pinned by SHA-256',
      additionalProperties: false,
      // One key per report kind (src/verify/kinds).
      properties: Object.fromEntries(REPORT_TYPES.map((id) => [id, { type: 'string', minLength: 1, description: `PEM file of the ${id} root` }])),
      default: {},
    },
    acceptedTcbStatuses: {
      type: 'array',
      items: { type: 'string', enum: [...TCB_STATUSES] },
      minItems: 1,
      uniqueItems: true,
      default: ['UpToDate', 'SWHardeningNeeded'],
      description: 'typeA TCB statuses accepted as valid',
    },
    acceptedAdvisories: {
      type: 'array',
      items: { type: 'string', pattern: '^INTEL-SA-[0-9]{4,}$' },
      uniqueItems: true,
      description:
        'Advisory allow-list. When set, a TCB status other than UpToDate is accepted only if it is in acceptedTcbStatuses and every advisory id of the matched TCB level (platform and QE) is listed, else TYPEA_TCB_ADVISORY_REJECTED; [] accepts only advisory-free levels; unset: advisories do not matter',
      examples: [['INTEL-SA-00615']],
    },
    allowDebugEnclaves: { type: 'boolean', default: false, description: 'Accept debug enclaves (typeA DEBUG attribute; typeB all-zero PCR0) and all-zero PCR targets' },
    workers: { type: 'integer', minimum: 0, maximum: 256, description: 'Verification worker threads; unset: the available parallelism; 0: verify on the main thread' },
    maxQueue: { type: 'integer', minimum: 1, maximum: 100000, default: 512, description: 'Verifications waiting for a worker at once; more are refused (503 POOL_OVERLOADED, Retry-After)' },
    taskTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000, default: 30000, description: 'Time limit of one verification in the pool (time waiting for the PCCS not counted); then 503 POOL_TASK_TIMEOUT' },
    workerYoungGenerationMb: {
      type: 'integer',
      minimum: 3,
      maximum: 1024,
      default: 12,
      description:
        "V8's young generation of each verification worker thread at most this many MiB (its two semi-spaces a third of it each: 12 is 4 MiB each; V8's own default is 48). A verification keeps little past its task, so a small young generation costs no throughput and keeps the process's memory low (the reverify CLI under 256 MiB); a --max-semi-space-size node flag, when given, takes precedence",
    },
    reproducibleBuildScript: { type: 'string', minLength: 1, default: './get-enclave-id.sh', description: 'Run at startup when uniqueIdTarget is missing or pcrValuesTarget does not hold 3 values, to compute them from the notarizer\'s reproducible build' },
    reproducibleBuildTimeoutMs: { type: 'integer', minimum: 1000, default: 7_200_000, description: 'Time limit of that script' },
    verificationTime: { type: 'string', format: 'date-time', description: 'ISO-8601 time used instead of the clock for typeA verification (audits of history); typeB documents are always verified at their own timestamp', examples: ['2024-09-01T00:00:00Z'] },
    ledgerPrograms: ledgerProgramsSchema,
    watch: {
      type: 'object',
      description: 'The ledger watcher: follows liveCheck.apiBaseUrl and stores every oracle update it verified (docs/ledger.md)',
      additionalProperties: false,
      required: ['enabled'],
      properties: {
        enabled: { type: 'boolean', description: 'Run the watcher (needs database and liveCheck.apiBaseUrl)' },
        fromHeight: { type: 'integer', minimum: 0, default: 0, description: 'First height scanned on a fresh store' },
        pollIntervalMs: { type: 'integer', minimum: 100, maximum: 3600000, default: 10000, description: 'Pause between polls of the tip (and after a failed step)' },
        database: { type: 'string', minLength: 1, description: 'The SQLite file of stored updates (relative to the config file)', examples: ['./ledger.sqlite'] },
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
        rps: { type: 'number', exclusiveMinimum: 0, default: 5, description: 'Node requests per second, retries included' },
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
        completeness: {
          type: 'boolean',
          default: true,
          description:
            'Completeness check at the tip: list the oracle data mappings (the node JWT in LEDGER_NODE_JWT) and explain every key by a stored write (docs/completeness.md), once the scan first reaches the tip, then every completenessIntervalMs and after new writes; without LEDGER_NODE_JWT the result is not_checked',
        },
        completenessIntervalMs: {
          type: 'integer',
          minimum: 1000,
          maximum: 86400000,
          default: 600000,
          description:
            'Completeness check: checked again at the first poll at the tip this long after the last check (a key the listing gained without a write the scan stored is found within it); also at the first poll at the tip after a range stored new records of the followed programs, and at the next poll after a check the node could not answer',
        },
        completenessWindowSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 604800,
          default: 3600,
          description: "Completeness check: an unexplained key's write is looked for in the blocks from 300 s before its attestation timestamp to this many seconds after it",
        },
        completenessMaxRescans: {
          type: 'integer',
          minimum: 0,
          maximum: 10000,
          default: 20,
          description: 'Completeness check: most unexplained keys whose block window is placed and scanned again per check',
        },
        proveInclusion: {
          type: 'boolean',
          default: false,
          description:
            "Prove each stored update committed in its block (docs/inclusion.md): its block read again whole from the node (GET /block/{h}), every input id, the transition and transaction ids, the transactions root and the block hash recomputed; a failed proof makes the update invalid or unverifiable (retried), never valid. Records carry `inclusion`",
        },
        confirmWith: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          description: "With proveInclusion: an independent ledger API (with its network, no credentials) that must name the same block hash at each proven height; absent: the node's own hash is taken (one's own node)",
          examples: ['https://api.explorer.aleo.org/v1/mainnet'],
        },
      },
      if: { properties: { enabled: { const: true } } },
      then: { required: ['enabled', 'database'] },
    },
    headersTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, default: 10000, description: 'A request whose request line and headers are not complete after this long is answered 408 (HTTP_REQUEST_TIMEOUT) and closed' },
    requestTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, default: 10000, description: 'A request not complete (headers and body) after this long is answered 408 and closed; at least headersTimeoutMs; both limits are checked every tenth of the shorter one (at most every second)' },
    shutdownGraceMs: { type: 'integer', minimum: 1000, maximum: 3600000, default: 20000, description: 'SIGTERM/SIGINT: the process answers what is in flight and exits within this time; more than requestTimeoutMs (docs/operations.md, Shutdown)' },
    logLevel: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', description: 'pino log level' },
    bodyLimit: { type: 'integer', minimum: 16384, maximum: 16777216, default: 262144, description: 'Request body limit in bytes (larger: 413 HTTP_BODY_TOO_LARGE)' },
    maxInflightBytes: {
      type: 'integer',
      minimum: 16384,
      maximum: 1073741824,
      default: 2097152,
      description: 'Most request body bytes of requests being read or answered at once, counted as they arrive (not as Content-Length promises); a chunk beyond it waits up to 1 s for room, else its request is answered 503 with Retry-After',
    },
    maxInflightBytesPerClient: {
      type: 'integer',
      minimum: 16384,
      maximum: 1073741824,
      description: 'Most of those bytes one remote address holds at once (default: half of maxInflightBytes); behind a reverse proxy every request comes from its address: set it to maxInflightBytes',
    },
    maxConnections: { type: 'integer', minimum: 16, maximum: 1000000, default: 4096, description: 'Most connections open at once; one more is closed as it opens (keep it well under the process\'s file-descriptor limit, so that health probes and the PCCS and ledger connections always find one)' },
    maxConnectionsPerClient: {
      type: 'integer',
      minimum: 1,
      maximum: 1000000,
      description: 'Most connections open at once from one remote address (default: an eighth of maxConnections); behind a reverse proxy every connection comes from its address: set it to maxConnections',
    },
    maxPipelinedRequests: { type: 'integer', minimum: 1, maximum: 1024, default: 16, description: 'A request that arrives while this many earlier requests of its connection are not yet answered closes the connection unanswered: answers a client does not read are not queued without bound' },
    keepAliveTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, default: 15000, description: 'An idle keep-alive connection is closed after this long; a reverse proxy\'s upstream keep-alive time must be shorter (deploy/nginx.conf: 10 s)' },
    ledgerLookupQueue: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 100,
      description: 'Most GET /ledger/transactions/{id} lookups waiting for the ledger node (its rate-limit slot or its answer) at once; more are answered 503 LEDGER_LOOKUP_QUEUE_FULL with Retry-After',
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
  collateralArchive?: string;
  tcbUpdatePolicy: 'standard' | 'early';
  trustedRoots: Partial<Record<ReportType, string>>;
  acceptedTcbStatuses: TcbStatusName[];
  acceptedAdvisories?: string[];
  allowDebugEnclaves: boolean;
  workers?: number;
  maxQueue: number;
  taskTimeoutMs: number;
  workerYoungGenerationMb: number;
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
  maxInflightBytesPerClient?: number;
  maxConnections: number;
  maxConnectionsPerClient?: number;
  maxPipelinedRequests: number;
  keepAliveTimeoutMs: number;
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
  /** Completeness check at the tip (docs/completeness.md). */
  completeness: boolean;
  /** The check runs again this long after the last one (and after new records were stored). */
  completenessIntervalMs: number;
  /** Seconds after an unexplained key's attestation timestamp its block window reaches. */
  completenessWindowSeconds: number;
  /** Most unexplained keys placed and rescanned per check. */
  completenessMaxRescans: number;
  /** Prove each stored update's inclusion in its block (docs/inclusion.md). */
  proveInclusion: boolean;
  /** With proveInclusion: a second API that must name the same block hashes. */
  confirmWith?: string;
}
