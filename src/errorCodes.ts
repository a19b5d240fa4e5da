/**
 * The ground floor of the verifier's failures: every stable error code (`errorCode` in answers,
 * the `code` label of failure metrics, stored records) with its traits, in one table. This module
 * imports nothing; each domain takes its closed list from here (`codesOf`) and every decision
 * about a code (HTTP status, verdict, retry) reads its traits (`traitsOf`), never its spelling.
 *
 * Traits:
 * - `status`: the HTTP status of an answer that fails with this code. 200: the code is a verdict
 *   on the evidence, answered in the body of a 200 (`reportValid: false`, `success: false`).
 *   Codes that never travel over HTTP (configuration, start-up, CLI, store) say 500: if one ever
 *   reached a client it would be an internal error.
 * - `outcome`: the verdict a report gets when this code is why it is not `valid`: `invalid` (a
 *   check failed on the evidence, or the input is malformed) or `unverifiable` (the verifier could
 *   not decide: a dependency is missing, down or overloaded, or its own set-up is wrong).
 * - `retryable`: the same request, unchanged, may succeed later (a transient condition).
 * - `refused`: the verifier refused or dropped the work before deciding anything (its pool's
 *   capacity): never a verdict; HTTP answers 503/500 and the watcher rescans instead of storing.
 * - `unanswered`: the upstream did not answer (down, 5xx, unreadable): it says nothing of whether
 *   it holds what was asked, so a caller asks again rather than remember an absence.
 */

/** How a verification ended: the one vocabulary of answers, records, the store and metrics. */
export type Outcome = 'valid' | 'invalid' | 'unverifiable';
export const OUTCOMES: readonly Outcome[] = ['valid', 'invalid', 'unverifiable'];

export interface CodeTraits {
  readonly status: number;
  readonly outcome: Exclude<Outcome, 'valid'>;
  readonly retryable: boolean;
  readonly refused?: true;
  readonly unanswered?: true;
  /** What to do about it, for the operator or caller who meets it (docs/error-codes.md prints it). */
  readonly todo: string;
}

/** A check failed on the evidence (or the evidence is malformed): a verdict in a 200 body. */
const EVIDENCE: CodeTraits = { status: 200, outcome: 'invalid', retryable: false, todo: 'Nothing to retry: the report, its binding or the data is wrong. Check that userData and report are the pair the oracle update carried, unchanged.' };
/** A dependency of the verification could not be had (PCCS, collateral): no verdict, try later. */
const DEPENDENCY: CodeTraits = { status: 200, outcome: 'unverifiable', retryable: true, todo: 'Nothing is known about the report. Try again later; for typeA make the PCCS (pccsUrl) reachable or configure collateralDir.' };
/**
 * The typeA collateral itself (TCB info, QE identity, their signing chain, the CRLs) is unusable:
 * malformed, badly signed, outside its validity at the verification time, or for another platform.
 * The collateral comes from the operator's PCCS or collateral directory, never from the report, so
 * this says nothing about the report: no verdict, try later (or with fresh collateral). Codes shared
 * with the report's own checks (X509_*, TYPEA_PCK_CHAIN_INVALID, TYPEA_PCK_CA_REVOKED) stay evidence.
 */
const COLLATERAL: CodeTraits = { ...DEPENDENCY, todo: 'The typeA collateral (from the PCCS or collateralDir) is unusable, not the report. Refresh it (PCCS cache, or `oracle-verifier collateral fetch` again) and retry; for old reports set verificationTime.' };
/** The verifier's own set-up (configuration, start-up, CLI, store): never answered over HTTP. */
const SETUP: CodeTraits = { status: 500, outcome: 'unverifiable', retryable: false, todo: 'Fix the set-up the message names (config.json key, file, script, store), then start again.' };
/** The caller's command or request is wrong. */
const BAD_REQUEST: CodeTraits = { status: 400, outcome: 'invalid', retryable: false, todo: 'Correct the request as the message says (docs/http-api.md lists each route\'s parameters).' };
/** The pool refused the work for capacity: a 503 with Retry-After, never a verdict. */
const REFUSED: CodeTraits = { status: 503, outcome: 'unverifiable', retryable: true, refused: true, todo: 'The verifier is busy: retry after Retry-After (another replica may answer). Persistent: add workers or replicas, or raise maxQueue/taskTimeoutMs.' };
/** The ledger node could not be asked or answered wrongly: 502 on the lookup route. */
const NODE_DOWN: CodeTraits = { status: 502, outcome: 'unverifiable', retryable: true, todo: 'The ledger node did not answer in time or refused: retry later, or lower watch.rps / use another node (liveCheck.apiBaseUrl).' };
const NODE_WRONG: CodeTraits = { status: 502, outcome: 'unverifiable', retryable: false, todo: 'The ledger node answered something unreadable: check liveCheck.apiBaseUrl points at a snarkOS REST API of the right network.' };
const NOT_CONFIGURED: CodeTraits = { status: 503, outcome: 'unverifiable', retryable: false, todo: 'Configure the feature the message names (watch.enabled with watch.database, or liveCheck.apiBaseUrl) and restart.' };
const http = (status: number): CodeTraits => ({ status, outcome: 'invalid', retryable: false, todo: 'Fix the request as the message says (method, path, content type, size or JSON shape; docs/http-api.md).' });
/** The same traits with a what-to-do of their own. */
const todo = (traits: CodeTraits, text: string): CodeTraits => ({ ...traits, todo: text });

export const ERROR_TRAITS = {
  config: {
    CONFIG_NOT_FOUND: SETUP,
    CONFIG_NOT_JSON: SETUP,
    CONFIG_INVALID: SETUP,
    CONFIG_BAD_TARGET: SETUP,
    CONFIG_BAD_TRUST_ROOT: SETUP,
    CONFIG_BAD_TLS: SETUP,
  },
  /** Start-up trust steps: reproducible build (get-enclave-id.sh), live check. */
  startup: {
    REPRO_BUILD_SCRIPT_NOT_FOUND: SETUP,
    REPRO_BUILD_SPAWN_FAILED: SETUP,
    REPRO_BUILD_FAILED: SETUP,
    REPRO_BUILD_TIMEOUT: SETUP,
    REPRO_BUILD_OUTPUT_TOO_LARGE: SETUP,
    REPRO_BUILD_MISSING_MARKER: SETUP,
    REPRO_BUILD_DUPLICATE_MARKER: SETUP,
    REPRO_BUILD_BAD_VALUE: SETUP,
    LIVECHECK_BAD_TARGET: SETUP,
    LIVECHECK_VALUE_ABSENT: SETUP,
    LIVECHECK_BAD_VALUE: SETUP,
    LIVECHECK_MISMATCH: SETUP,
  },
  /** The Aleo struct and Leo value codecs (u128, chunked structs, ids, Leo values). */
  aleo: {
    STRUCT_INVALID_ARGUMENT: EVIDENCE,
    STRUCT_TOO_LONG: EVIDENCE,
    STRUCT_SYNTAX: EVIDENCE,
    STRUCT_VALUE_OUT_OF_RANGE: EVIDENCE,
    STRUCT_KEY_ORDER: EVIDENCE,
    STRUCT_CHUNK_COUNT: EVIDENCE,
    STRUCT_FIELD_COUNT: EVIDENCE,
    STRUCT_TRAILING_DATA: EVIDENCE,
    STRUCT_BYTES_TOO_LONG: EVIDENCE,
    U128_OUT_OF_RANGE: EVIDENCE,
    U128_OUT_OF_BOUNDS: EVIDENCE,
  },
  /** The notarizer's proof data (decoder side). */
  proofData: {
    PROOF_DATA_TOO_SHORT: EVIDENCE,
    PROOF_DATA_SECTION_OVERRUN: EVIDENCE,
    PROOF_DATA_BAD_SECTION_LENGTH: EVIDENCE,
    PROOF_DATA_BAD_FORMAT: EVIDENCE,
    PROOF_DATA_BAD_ENCODING_OPTIONS: EVIDENCE,
    PROOF_DATA_BAD_ATTESTATION_DATA: EVIDENCE,
    PROOF_DATA_BAD_HEADERS: EVIDENCE,
    PROOF_DATA_BAD_OPTIONAL_FIELDS: EVIDENCE,
    PROOF_DATA_NONZERO_PADDING: EVIDENCE,
    PROOF_DATA_VALUE_OUT_OF_RANGE: EVIDENCE,
    PROOF_DATA_TOO_LONG: EVIDENCE,
  },
  /** The encoder side: values the notarizer would refuse to encode. */
  proofDataEncode: {
    ENCODE_UNKNOWN_VALUE_TYPE: EVIDENCE,
    ENCODE_PRECISION_TOO_BIG: EVIDENCE,
    ENCODE_BAD_PRECISION: EVIDENCE,
    ENCODE_TOO_PRECISE: EVIDENCE,
    ENCODE_SCIENTIFIC_NOTATION: EVIDENCE,
    ENCODE_DECIMALLESS_SCIENTIFIC: EVIDENCE,
    ENCODE_NEGATIVE_FLOAT: EVIDENCE,
    ENCODE_FLOAT_PARSE: EVIDENCE,
    ENCODE_FLOAT_LOSSY: EVIDENCE,
    ENCODE_INT_PARSE: EVIDENCE,
    ENCODE_VALUE_TOO_LONG: EVIDENCE,
    ENCODE_BAD_RESPONSE_FORMAT: EVIDENCE,
    ENCODE_BAD_HTML_RESULT_TYPE: EVIDENCE,
    ENCODE_FIELD_TOO_LONG: EVIDENCE,
    ENCODE_BAD_INPUT: EVIDENCE,
  },
  /** Era detection of userData. */
  era: {
    USERDATA_ERA_UNKNOWN: EVIDENCE,
    USERDATA_NO_REQUEST: EVIDENCE,
    USERDATA_CHUNK_AFTER_EMPTY: EVIDENCE,
  },
  hash: {
    HASH_INPUT_EMPTY: EVIDENCE,
    HASH_INPUT_LENGTH: EVIDENCE,
    HASH_INPUT_TOO_LARGE: EVIDENCE,
    HASH_FIELD_OUT_OF_RANGE: EVIDENCE,
    HASH_STRUCT_MEMBER: EVIDENCE,
    HASH_U128_OUT_OF_RANGE: EVIDENCE,
  },
  cbor: {
    CBOR_TRUNCATED: EVIDENCE,
    CBOR_MALFORMED: EVIDENCE,
    CBOR_LIMIT: EVIDENCE,
    CBOR_TRAILING_BYTES: EVIDENCE,
    CBOR_TAG_NOT_ALLOWED: EVIDENCE,
  },
  der: {
    DER_MALFORMED: EVIDENCE,
  },
  x509: {
    X509_MALFORMED: EVIDENCE,
    X509_UNSUPPORTED_KEY: EVIDENCE,
    X509_NEGATIVE_SERIAL: EVIDENCE,
    X509_PEM_MALFORMED: EVIDENCE,
    X509_CHAIN_TOO_SHORT: EVIDENCE,
    X509_CHAIN_UNTRUSTED_ROOT: EVIDENCE,
    X509_CHAIN_NAME_MISMATCH: EVIDENCE,
    X509_CHAIN_EXPIRED: EVIDENCE,
    X509_CHAIN_NOT_YET_VALID: EVIDENCE,
    X509_CHAIN_NOT_CA: EVIDENCE,
    X509_CHAIN_KEY_USAGE: EVIDENCE,
    X509_CHAIN_PATH_LEN: EVIDENCE,
    X509_CHAIN_UNKNOWN_CRITICAL_EXTENSION: EVIDENCE,
    X509_CHAIN_UNSUPPORTED_ALGORITHM: EVIDENCE,
    X509_CHAIN_BAD_SIGNATURE: EVIDENCE,
    X509_CHAIN_BAD_LEAF_KEY: EVIDENCE,
    X509_CHAIN_BAD_LEAF_ALGORITHM: EVIDENCE,
  },
  /** CRLs are typeA collateral only (PCK CRL, Root CA CRL). */
  crl: {
    CRL_MALFORMED: COLLATERAL,
    CRL_UNSUPPORTED_ALGORITHM: COLLATERAL,
    CRL_UNKNOWN_CRITICAL_EXTENSION: COLLATERAL,
    CRL_ISSUER_MISMATCH: COLLATERAL,
    CRL_ISSUER_NOT_CRL_SIGNER: COLLATERAL,
    CRL_BAD_SIGNATURE: COLLATERAL,
    CRL_NOT_YET_VALID: COLLATERAL,
    CRL_EXPIRED: COLLATERAL,
    /** Judging at a past time: the CRL at hand was valid only until before that time, so it cannot tell the revocations as they stood then. */
    CRL_ENDS_BEFORE_TIME: COLLATERAL,
  },
  /** The SGX quote bytes themselves (envelope, layout). */
  quote: {
    QUOTE_NOT_BYTES: EVIDENCE,
    QUOTE_BAD_ENVELOPE: EVIDENCE,
    QUOTE_TRUNCATED: EVIDENCE,
    QUOTE_TRAILING_BYTES: EVIDENCE,
    QUOTE_UNSUPPORTED_VERSION: EVIDENCE,
    QUOTE_TDX_NOT_SUPPORTED: EVIDENCE,
    QUOTE_UNSUPPORTED_TEE_TYPE: EVIDENCE,
    QUOTE_UNSUPPORTED_KEY_TYPE: EVIDENCE,
    QUOTE_BAD_QE_VENDOR: EVIDENCE,
    QUOTE_BAD_CERT_DATA_TYPE: EVIDENCE,
    QUOTE_BAD_PCK_CHAIN: EVIDENCE,
  },
  /** typeA collateral and verification (CRL_* and X509_* keep their own codes); collateral-only codes are COLLATERAL. */
  typeA: {
    TYPEA_COLLATERAL_MALFORMED: COLLATERAL,
    TYPEA_TCB_INFO_MALFORMED: COLLATERAL,
    TYPEA_TCB_INFO_UNSUPPORTED_VERSION: COLLATERAL,
    TYPEA_TCB_INFO_BAD_SIGNATURE: COLLATERAL,
    TYPEA_TCB_INFO_NOT_YET_VALID: COLLATERAL,
    TYPEA_TCB_INFO_EXPIRED: COLLATERAL,
    TYPEA_QE_IDENTITY_MALFORMED: COLLATERAL,
    TYPEA_QE_IDENTITY_UNSUPPORTED_VERSION: COLLATERAL,
    TYPEA_QE_IDENTITY_BAD_SIGNATURE: COLLATERAL,
    TYPEA_QE_IDENTITY_NOT_YET_VALID: COLLATERAL,
    TYPEA_QE_IDENTITY_EXPIRED: COLLATERAL,
    TYPEA_TCB_SIGNING_CHAIN_INVALID: COLLATERAL,
    TYPEA_TCB_SIGNING_CERT_REVOKED: COLLATERAL,
    TYPEA_PCK_CHAIN_INVALID: EVIDENCE,
    TYPEA_PCK_CRL_ISSUER_MISMATCH: COLLATERAL,
    /** The PCK CRL's issuer chain (from the PCCS or collateralDir, not the report) does not validate: a signature, a date, a name. */
    TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID: COLLATERAL,
    TYPEA_PCK_CA_REVOKED: EVIDENCE,
    TYPEA_PCK_CERT_REVOKED: EVIDENCE,
    TYPEA_PCK_EXTENSION_MISSING: EVIDENCE,
    TYPEA_PCK_EXTENSION_MALFORMED: EVIDENCE,
    TYPEA_FMSPC_MISMATCH: COLLATERAL,
    TYPEA_PCE_ID_MISMATCH: COLLATERAL,
    TYPEA_QE_REPORT_BAD_SIGNATURE: EVIDENCE,
    TYPEA_QE_REPORT_DATA_MISMATCH: EVIDENCE,
    TYPEA_QE_MISCSELECT_MISMATCH: EVIDENCE,
    TYPEA_QE_ATTRIBUTES_MISMATCH: EVIDENCE,
    TYPEA_QE_MRSIGNER_MISMATCH: EVIDENCE,
    TYPEA_QE_ISVPRODID_MISMATCH: EVIDENCE,
    TYPEA_QE_TCB_LEVEL_NOT_FOUND: EVIDENCE,
    TYPEA_BAD_ATTESTATION_KEY: EVIDENCE,
    TYPEA_ISV_REPORT_BAD_SIGNATURE: EVIDENCE,
    TYPEA_TCB_LEVEL_NOT_FOUND: EVIDENCE,
    /** A list of TCB evaluation data numbers that is not Intel's shape (src/attestation/typeA/tcbEvaluations.ts). */
    TYPEA_TCB_EVALUATIONS_MALFORMED: COLLATERAL,
    /** A list of TCB evaluation data numbers whose signature does not verify with its TCB Signing certificate. */
    TYPEA_TCB_EVALUATIONS_BAD_SIGNATURE: COLLATERAL,
    /**
     * The TCB evaluation in force at the update's time is not known: not in any signed list at hand, a gap
     * in the numbers, or no list new enough to rule out a later one (src/attestation/typeA/evaluationInForce.ts).
     */
    TYPEA_TCB_EVALUATION_UNAVAILABLE: todo({ ...DEPENDENCY, retryable: false }, 'The TCB evaluation in force at the update\'s time is not at hand, so the update is not judged by another: the message names the FMSPC, the time and the evaluation wanted. Supply Intel\'s signed copies of that evaluation (its TCB info and QE identity) and a signed list of evaluation numbers that covers the time.'),
  },
  typeB: {
    TYPEB_REPORT_TOO_SHORT: EVIDENCE,
    TYPEB_REPORT_PREFIX: EVIDENCE,
    TYPEB_REPORT_NONZERO_PADDING: EVIDENCE,
    TYPEB_COSE_TAGGED: EVIDENCE,
    TYPEB_COSE_STRUCTURE: EVIDENCE,
    TYPEB_COSE_PROTECTED_HEADER: EVIDENCE,
    TYPEB_COSE_ALGORITHM: EVIDENCE,
    TYPEB_COSE_UNPROTECTED_HEADER: EVIDENCE,
    TYPEB_COSE_SIGNATURE_LENGTH: EVIDENCE,
    TYPEB_DOC_NOT_A_MAP: EVIDENCE,
    TYPEB_DOC_MISSING_FIELD: EVIDENCE,
    TYPEB_DOC_UNKNOWN_FIELD: EVIDENCE,
    TYPEB_DOC_BAD_FIELD: EVIDENCE,
    TYPEB_DOC_DIGEST: EVIDENCE,
    TYPEB_DEBUG_MODE: EVIDENCE,
    TYPEB_SIGNATURE_INVALID: EVIDENCE,
  },
  /** The PCCS client (collateral over HTTP). */
  pccs: {
    PCCS_UNAVAILABLE: todo({ ...DEPENDENCY, unanswered: true }, 'The PCCS did not answer: check pccsUrl and GET /status/pccs; retry later, or configure collateralDir.'),
    PCCS_HTTP_ERROR: todo({ ...DEPENDENCY, unanswered: true }, 'The PCCS answered 5xx: check the PCCS (its log, its API key PCCS_API_KEY); retry later.'),
    PCCS_NOT_FOUND: todo(DEPENDENCY, 'The PCCS has no collateral for this platform (FMSPC): use a PCCS that caches it, Intel\'s PCS, or a collateralDir with it.'),
    PCCS_BAD_RESPONSE: { ...DEPENDENCY, unanswered: true },
  },
  collateralDir: {
    COLLATERAL_DIR_INVALID: SETUP,
  },
  /** The collateral archive (src/collateral/archive.ts): a directory or a file to import that cannot be used. */
  collateralArchive: {
    COLLATERAL_ARCHIVE_INVALID: todo(SETUP, 'Fix the archive or the file the message names: an archive holds only documents this verifier wrote after checking their signatures (`oracle-verifier collateral import`); re-import from the original copies.'),
  },
  pool: {
    POOL_OVERLOADED: REFUSED,
    POOL_TASK_TIMEOUT: REFUSED,
    POOL_WORKER_FAILED: todo({ ...REFUSED, status: 500 }, 'A worker thread died: retry; if it repeats, report it with the log.'),
    POOL_CLOSED: REFUSED,
  },
  /** The verification's own checks (policy, binding, kind dispatch). */
  verify: {
    REPORT_UNKNOWN_KIND: EVIDENCE,
    USERDATA_HASH_MISMATCH: EVIDENCE,
    TYPEA_TCB_STATUS_REJECTED: EVIDENCE,
    TYPEA_TCB_ADVISORY_REJECTED: EVIDENCE,
    TYPEA_DEBUG_ENCLAVE: EVIDENCE,
    TYPEA_UNIQUE_ID_MISMATCH: EVIDENCE,
    TYPEA_REPORT_DATA_NOT_ZERO: EVIDENCE,
    TYPEA_COLLATERAL_UNAVAILABLE: todo(DEPENDENCY, 'No collateral for this platform: make the PCCS reachable or add the FMSPC to collateralDir (`oracle-verifier collateral fetch`).'),
    TYPEB_PCR_MISMATCH: EVIDENCE,
    TYPEB_PCR_MISSING: EVIDENCE,
    TYPEB_USER_DATA_LENGTH: EVIDENCE,
    TYPEB_NONCE_MISMATCH: EVIDENCE,
    REQUEST_BAD_NONCE: EVIDENCE,
    /** An unexpected failure of the verifier itself: it did not decide. */
    INTERNAL_ERROR: { status: 500, outcome: 'unverifiable', retryable: false, todo: 'A fault of the verifier: report it with the request and the log line (nothing is known about the report).' },
  },
  /** POST /verify's checks of one notarizer response. */
  response: {
    BAD_ATTESTATION_REPORT: EVIDENCE,
    REPORT_MISMATCH: EVIDENCE,
    REPORT_MISSING: EVIDENCE,
    RESPONSE_FIELDS_MISSING: EVIDENCE,
    RESPONSE_FIELDS_MISMATCH: EVIDENCE,
    RESPONSE_FIELDS_NOT_ENCODABLE: EVIDENCE,
    REPORT_TYPE_MISMATCH: EVIDENCE,
  },
  /** Signed attestation results (EAR, src/ear/): the signing key and the asking for one. */
  ear: {
    EAR_NOT_CONFIGURED: todo(http(406), 'This verifier signs no EAR: ask without format=ear / Accept: application/eat+jwt, or have the operator set EAR_SIGNING_KEY (docs/ear.md).'),
    EAR_KEY_INVALID: todo(SETUP, 'EAR_SIGNING_KEY must hold one private key, ES256 (P-256) or EdDSA (Ed25519), as PKCS#8 PEM or a private JWK (docs/ear.md); fix it and start again.'),
  },
  /** Requests that could not be read. */
  http: {
    HTTP_UNSUPPORTED_MEDIA_TYPE: http(415),
    HTTP_BAD_CONTENT_LENGTH: http(400),
    HTTP_BODY_TOO_LARGE: http(413),
    HTTP_EMPTY_BODY: http(400),
    HTTP_INVALID_JSON: http(400),
    HTTP_INVALID_BODY: http(400),
    HTTP_BAD_REQUEST: http(400),
    HTTP_METHOD_NOT_ALLOWED: http(405),
    HTTP_NOT_FOUND: http(404),
    HTTP_NO_REPORTS: http(400),
    HTTP_TOO_MANY_REPORTS: http(400),
    HTTP_UNSUPPORTED_ENCODING: http(415),
    HTTP_BAD_URL: http(400),
    HTTP_URI_TOO_LONG: http(414),
    HTTP_HEADERS_TOO_LARGE: http(431),
    HTTP_REQUEST_TIMEOUT: http(408),
    /** An `Expect` header other than 100-continue. */
    HTTP_EXPECTATION_FAILED: todo(http(417), 'Send no Expect header, or Expect: 100-continue.'),
    /** The body nests objects and arrays deeper than the server reads (checked before parsing). */
    HTTP_JSON_TOO_DEEP: todo(http(400), 'Flatten the body: objects and arrays may nest at most 64 levels (the message names where it went deeper).'),
    /** The request bytes being read or answered (counted as they arrive) reached maxInflightBytes or the address's maxInflightBytesPerClient (503, Retry-After). */
    HTTP_INFLIGHT_LIMIT: todo(REFUSED, 'Too many request bytes in flight (or from your address): retry after Retry-After, or raise maxInflightBytes / maxInflightBytesPerClient.'),
  },
  /** The command line (exit codes in src/cli/errors.ts). */
  cli: {
    CLI_USAGE: todo({ ...SETUP, outcome: 'invalid' }, 'Fix the command line; `oracle-verifier COMMAND --help` lists the options (docs/cli.md).'),
    CLI_BAD_INPUT: todo({ ...SETUP, outcome: 'invalid' }, 'Fix the input file or line the message names.'),
    CLI_NO_TARGETS: SETUP,
    CLI_CHECKPOINT_MISMATCH: SETUP,
    CLI_CHECKPOINT_INVALID: SETUP,
    CLI_COLLATERAL_DIR_INVALID: SETUP,
    /** reverify --stop-when-budget-spent: the day's request budget (--requests-per-day) is spent; --resume continues the next day. */
    CLI_REQUEST_BUDGET_SPENT: { ...SETUP, retryable: true },
    /** merge --checkpoints: a shard of the scan is not done, or not of the same scan: nothing merged. */
    CLI_SHARDS_INCOMPLETE: SETUP,
  },
  /** The ledger node: its REST client (src/ledger/node/client.ts) and its answers as read by the block scanner. */
  ledgerNode: {
    LEDGER_NODE_BAD_URL: NODE_WRONG,
    LEDGER_NODE_UNREACHABLE: NODE_DOWN,
    LEDGER_NODE_TIMEOUT: NODE_DOWN,
    LEDGER_NODE_RATE_LIMITED: NODE_DOWN,
    LEDGER_NODE_HTTP_ERROR: NODE_DOWN,
    LEDGER_NODE_BAD_RESPONSE: NODE_WRONG,
    /** A block answer holds other heights than the range asked for: wrong, missing, duplicated or out of order (the message names the heights). */
    LEDGER_NODE_BAD_BLOCKS: NODE_WRONG,
    /** A block answer's body is not JSON of the blocks shape (truncated, malformed, a block without its height); the message names the block and byte offset. */
    LEDGER_NODE_MALFORMED_BLOCKS: NODE_WRONG,
    /** A `/blocks/transactions` answer holds another number of blocks than the range asked for. */
    LEDGER_NODE_BLOCK_COUNT: NODE_WRONG,
    LEDGER_NODE_BAD_TRANSACTION: NODE_WRONG,
    /** A mapping value the node answered is neither JSON null nor a string holding the expected Leo value (the mapping cross-check). */
    LEDGER_NODE_BAD_MAPPING_VALUE: NODE_WRONG,
    /**
     * The node refused to list a mapping (`GET /program/{id}/mapping/{name}?all=true`, behind its JWT
     * middleware): no JWT, a wrong or expired one (401; on the v1 paths a 500 ending "(HTTP 401)").
     */
    LEDGER_NODE_LISTING_REFUSED: todo(NODE_WRONG, 'The node refused the JWT (none, wrong or expired): issue a fresh one for LEDGER_NODE_JWT from the node you run.'),
    /** The node does not serve the mapping listing (an older node, or a gateway that hides it). */
    LEDGER_NODE_LISTING_UNSUPPORTED: todo(NODE_WRONG, 'This node does not serve the mapping listing: point the check at a snarkOS node of your own (public gateways hide it).'),
    /** A mapping listing not in snarkOS's shape (`{ data: [[key, value]…], height }`), or a block header without a timestamp. */
    LEDGER_NODE_BAD_LISTING: NODE_WRONG,
    /**
     * The completeness check listed no mapping that exists: every oracle data mapping of the followed
     * programs answered "does not exist" or "is not initialized" (a node of another network, one not
     * synced, or one that hides them), so nothing was listed and nothing is proven (not_checked).
     */
    LEDGER_NODE_NO_ORACLE_MAPPING: todo(
      NODE_WRONG,
      "None of the followed programs' oracle data mappings exists on this node: point the check at a synced snarkOS node of the network the programs are deployed on, or follow that network's programs (ledgerPrograms, --program).",
    ),
    /**
     * The ledger-node bodies being read at once already hold the process's budget (LEDGER_NODE_BODY_BUDGET in src/ledger/node/client.ts, 32 MiB): the
     * answer was abandoned unread, capacity rather than the node's fault (503 with Retry-After).
     */
    LEDGER_NODE_BODY_BUDGET: todo(REFUSED, 'Ledger-node answers being read at once hold the process budget: retry after Retry-After.'),
    LEDGER_TX_NOT_FOUND: todo(http(404), 'The node does not know this transaction id: check the id and the network of liveCheck.apiBaseUrl.'),
  },
  /** A followed transition that cannot be read. */
  ledgerRecords: {
    LEDGER_TRANSITION_MALFORMED: EVIDENCE,
  },
  /** The /ledger routes (docs/ledger.md). */
  ledgerWatch: {
    /** GET /ledger/status or /ledger/updates while no watcher (`watch.enabled`) is configured. */
    LEDGER_WATCH_NOT_CONFIGURED: todo(NOT_CONFIGURED, 'Set watch.enabled: true, watch.database and liveCheck.apiBaseUrl in config.json and restart (docs/ledger.md).'),
    /** GET /ledger/transactions/{id} while no ledger node (`liveCheck.apiBaseUrl`) is configured. */
    LEDGER_NODE_NOT_CONFIGURED: todo(NOT_CONFIGURED, 'Set liveCheck.apiBaseUrl (a snarkOS REST API) in config.json and restart.'),
    /** A path or query parameter of a /ledger route is not valid. */
    LEDGER_BAD_REQUEST: BAD_REQUEST,
    /** The `cursor` of GET /ledger/updates is not one this server handed out. */
    LEDGER_BAD_CURSOR: BAD_REQUEST,
    /** GET /ledger/transactions/{id}: `ledgerLookupQueue` lookups already wait for the ledger node (503 with Retry-After). */
    LEDGER_LOOKUP_QUEUE_FULL: todo(REFUSED, 'Too many lookups wait for the ledger node: retry after Retry-After, or raise ledgerLookupQueue.'),
    /** The completeness check may not list the oracle mappings: no node JWT (LEDGER_NODE_JWT) is configured. */
    LEDGER_LISTING_NOT_CONFIGURED: todo(NOT_CONFIGURED, 'Set LEDGER_NODE_JWT to a JWT of your own snarkOS node (the mapping listing sits behind its JWT middleware); docs/completeness.md.'),
  },
  /**
   * Inclusion proofs (docs/inclusion.md): an update's values proven committed in its block, link by
   * link. A link that fails is a verdict on what the node served: it does not commit to itself.
   */
  inclusion: {
    /** A public input's id is not the Poseidon8 hash of its value (the value was changed, its id kept). */
    INCLUSION_INPUT_ID_MISMATCH: todo(EVIDENCE, 'The node served an input value its transition does not commit to: read the transaction from another node or API (--confirm-with) and report the node.'),
    /** The transition id is not the hash of its inputs' and outputs' ids. */
    INCLUSION_TRANSITION_ID_MISMATCH: todo(EVIDENCE, 'The node served a transition whose id does not commit to its inputs and outputs: read it from another source.'),
    /** The transaction id is not the root of its transitions' ids. */
    INCLUSION_TRANSACTION_ID_MISMATCH: todo(EVIDENCE, 'The node served a transaction whose id does not commit to its transitions: read it from another source.'),
    /** The transaction is not among the confirmed transactions of the block the node placed it in. */
    INCLUSION_NOT_IN_BLOCK: todo(EVIDENCE, 'The node placed the transaction in a block that does not hold it: read the block from another source.'),
    /** The block's transactions root is not the root of the confirmed transaction ids the node served. */
    INCLUSION_TRANSACTIONS_ROOT_MISMATCH: todo(EVIDENCE, 'The node served a block whose transactions do not match its header (a transaction added, removed or changed): read the block from another source.'),
    /** The block hash is not BHP1024(previous hash, header root) of the header the node served. */
    INCLUSION_BLOCK_HASH_MISMATCH: todo(EVIDENCE, 'The node served a header that does not hash to its block hash: read the block from another source.'),
    /** The block's header could not be had (the node lacks the route or the block). */
    INCLUSION_HEADER_MISSING: todo({ ...NODE_DOWN, status: 200 }, 'The node did not serve the block (its header and transaction ids) the proof needs: retry, or point --node at a node that serves GET /{network}/block/{h}.'),
    /** The independent source (--confirm-with) could not be asked for the block. */
    INCLUSION_CONFIRMATION_UNAVAILABLE: todo({ ...NODE_DOWN, status: 200 }, 'The second source (--confirm-with) did not serve the block: retry later, or name another independent API.'),
    /** The independent source names another block hash at that height, or none. */
    INCLUSION_SOURCES_DISAGREE: todo({ ...NODE_WRONG, status: 200 }, 'The two sources disagree on the block hash at this height: one of them serves another chain. Ask a third source; trust neither until they agree.'),
    /** The update cannot be proven this way (a deployment, a rejected transaction, an input type this verifier does not read). */
    INCLUSION_UNSUPPORTED: todo({ ...NODE_WRONG, status: 200 }, 'This transaction cannot be proven by this verifier (the message says why); its verdict stands without an inclusion proof.'),
  },
  /** The store of ledger update records. */
  store: {
    /** The database file cannot be opened or created. */
    STORE_OPEN_FAILED: SETUP,
    /** The file is a database of another schema (or not one of ours). */
    STORE_SCHEMA_MISMATCH: SETUP,
    /** A write to the store failed (the message names SQLite's code: SQLITE_FULL, SQLITE_BUSY, SQLITE_READONLY…). */
    STORE_WRITE_FAILED: todo({ ...SETUP, retryable: true }, 'Free disk space or fix the store file\'s permissions (the SQLite code says which); the watcher retries.'),
    /** A read of the store failed (the message names SQLite's code). */
    STORE_READ_FAILED: todo({ ...SETUP, retryable: true }, 'Check the store file (the SQLite code says why); retry.'),
    /** Another ledger watcher holds the store's lease (one watcher per store). */
    STORE_LEASE_HELD: todo(SETUP, 'Another watcher uses this store. The server\'s watcher waits for the lease (GET /ledger/status: waitingForLease) and starts once it is given up, expires (watch.leaseTtlMs after a dead holder\'s last heartbeat), or its holder\'s process on this host no longer runs. Run one watcher per store.'),
    /** This watcher's lease was taken over (it could not renew it in time): it stops writing. */
    STORE_LEASE_LOST: SETUP,
  },
} as const satisfies Record<string, Record<string, CodeTraits>>;

type Table = typeof ERROR_TRAITS;
export type ErrorDomain = keyof Table;
/** The codes of one domain. */
export type DomainCode<D extends ErrorDomain> = keyof Table[D] & string;
/** Every declared code: `VerifierError<C extends ErrorCode>` makes an undeclared code a compile error. */
export type ErrorCode = { [D in ErrorDomain]: DomainCode<D> }[ErrorDomain];

const TRAITS = new Map<string, CodeTraits>();
const DOMAIN = new Map<string, ErrorDomain>();
for (const [d, codes] of Object.entries(ERROR_TRAITS) as [ErrorDomain, Record<string, CodeTraits>][]) {
  for (const [c, t] of Object.entries(codes)) {
    TRAITS.set(c, t);
    DOMAIN.set(c, d);
  }
}

/** Every declared code, in declaration order. */
export const ERROR_CODES: readonly ErrorCode[] = [...TRAITS.keys()] as ErrorCode[];

/** The closed list of one domain's codes. */
export function codesOf<D extends ErrorDomain>(domain: D): readonly DomainCode<D>[] {
  return Object.keys(ERROR_TRAITS[domain]) as DomainCode<D>[];
}

/** Each domain's closed list of codes. */
export const ERROR_CODES_BY_DOMAIN = Object.fromEntries(
  (Object.keys(ERROR_TRAITS) as ErrorDomain[]).map((d) => [d, codesOf(d)]),
) as unknown as { readonly [D in ErrorDomain]: readonly DomainCode<D>[] };

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && TRAITS.has(code);
}

export function traitsOf(code: ErrorCode): CodeTraits {
  return TRAITS.get(code)!;
}

export function domainOf(code: ErrorCode): ErrorDomain {
  return DOMAIN.get(code)!;
}

/** The verdict of a report that failed with `code` (a code this build does not know: invalid). */
export function outcomeOfCode(code: ErrorCode | undefined): Exclude<Outcome, 'valid'> {
  return code !== undefined && isErrorCode(code) ? traitsOf(code).outcome : 'invalid';
}

/**
 * The outcome of a verification: `valid` when the report is valid, else its failure code's
 * (answers, records, the store, metrics and the CLI all call this one function).
 */
export function outcomeFor(reportValid: boolean, code: ErrorCode | undefined): Outcome {
  return reportValid ? 'valid' : outcomeOfCode(code);
}
