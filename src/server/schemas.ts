/** Route schemas: the single source for validation, serialisation and the OpenAPI description. */

import { USER_DATA_CHUNK_COUNTS } from '../encoding/eras/index.js';
import { KINDS, REPORT_TYPES } from '../verify/kinds/index.js';

const structText = (chunks: number) => ({
  type: 'string',
  description: `Ledger struct text with chunks c0…c${chunks - 1}, each with fields f0…f31 (u128)`,
});

const userDataText = {
  type: 'string',
  description:
    `Ledger struct text with ${USER_DATA_CHUNK_COUNTS.join(' or ')} chunks c0…, each with fields f0…f31 (u128): ` +
    '8 chunks = one request (eras 1–3), 10 chunks = one request per chunk (era 4)',
} as const;

export const errorBody = {
  type: 'object',
  properties: { errorString: { type: 'string' }, errorCode: { type: 'string' } },
} as const;

export const decodedDataSchema = {
  type: 'object',
  description: 'The attested request and data, decoded from userData',
  additionalProperties: true,
  properties: {
    url: { type: 'string' },
    requestMethod: { type: 'string' },
    selector: { type: 'string' },
    responseFormat: { type: 'string' },
    htmlResultType: { type: 'string' },
    requestBody: { type: 'string' },
    requestContentType: { type: 'string' },
    requestHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    encodingOptions: {
      type: 'object',
      properties: { value: { type: 'string' }, precision: { type: 'integer' } },
    },
    attestationData: { type: 'string' },
    responseStatusCode: { type: 'integer' },
    timestamp: { type: 'integer' },
    truncated: { type: 'boolean', description: '10-chunk data: the request was cut to its 512-byte chunk; headers / optional fields left out' },
  },
} as const;

export const decodedRequestsSchema = {
  type: 'array',
  description: 'Every request of userData in chunk order (one for 8-chunk data); decodedData is the first',
  items: {
    type: 'object',
    additionalProperties: true,
    properties: {
      ...decodedDataSchema.properties,
      tokenId: { type: 'integer', description: 'Price-feed token id (byte 0 in eras 1–2, byte 21 since era 3)' },
      requestHash: { type: 'string', description: '10-chunk data: Poseidon8 of the chunk with f2, f3 zeroed (u128 decimal)' },
      timestampedRequestHash: { type: 'string', description: '10-chunk data: Poseidon8 of { request_hash, attestation_timestamp } (u128 decimal)' },
    },
  },
} as const;

export const decodeRequest = {
  type: 'object',
  required: ['userData'],
  properties: { userData: userDataText },
} as const;

export const decodeResponse = {
  type: 'object',
  properties: {
    decodedData: decodedDataSchema,
    decodedRequests: decodedRequestsSchema,
    success: { type: 'boolean' },
    errorString: { type: 'string' },
    errorCode: { type: 'string' },
  },
} as const;

export const decodeReportRequest = {
  type: 'object',
  required: ['userData', 'report'],
  properties: {
    userData: userDataText,
    report: structText(10),
    nonce: { type: 'string', description: 'Optional typeB nonce (hex or base64) that the document must carry' },
  },
} as const;

export const checksSchema = {
  type: 'array',
  description:
    'Every check in the order the verifier ran them: passed, failed (with its errorCode) or skipped (not run: after the failure, or not applicable)',
  items: {
    type: 'object',
    required: ['id', 'title', 'status'],
    properties: {
      id: { type: 'string', description: 'Stable check id, e.g. struct.parse, typeB.chain, policy.pcrs, binding' },
      title: { type: 'string' },
      status: { type: 'string', enum: ['passed', 'failed', 'skipped'] },
      code: { type: 'string', description: 'The errorCode of a failed check' },
    },
  },
} as const;

/** The three-valued verdict (src/errorCodes.ts `Outcome`, decided by the failure code's traits). */
export const outcomeSchema = {
  type: 'string',
  enum: ['valid', 'invalid', 'unverifiable'],
  description:
    'valid; invalid: a check failed on the evidence; unverifiable: the verifier could not decide (PCCS or collateral unavailable or unusable, ledger node down, pool overloaded, time limit) — try again later',
} as const;

export const decodeReportResponse = {
  type: 'object',
  required: ['reportValid', 'outcome'],
  properties: {
    decodedData: decodedDataSchema,
    decodedRequests: decodedRequestsSchema,
    decodedReport: { type: 'object', additionalProperties: true, description: 'Fields of the detected report kind' },
    reportValid: { type: 'boolean', description: 'true exactly when outcome is valid' },
    outcome: outcomeSchema,
    checks: checksSchema,
    errorString: { type: 'string' },
    errorCode: { type: 'string' },
    reportType: { type: 'string', enum: REPORT_TYPES },
  },
} as const;

export const infoResponse = {
  type: 'object',
  properties: {
    // Each kind's target (targetUniqueId, targetPcrValues): hex, base64 and ledger struct text.
    ...Object.fromEntries(KINDS.map((k) => [k.target.info.key, k.target.info.schema])),
    liveCheckProgram: {
      type: 'string',
      nullable: true,
      description: 'Ledger program of the live check (NAME.aleo); null when liveCheck.contractName is not configured',
    },
    startTimeUTC: { type: 'string' },
    ledgerPrograms: {
      type: 'array',
      items: { type: 'string' },
      description: 'The oracle programs the ledger watcher and GET /ledger/transactions/{id} follow (built-in, or defined in config.json ledgerPrograms); absent without a ledger node (liveCheck.apiBaseUrl)',
    },
    ledgerWatcher: {
      type: 'boolean',
      description: 'Whether this server runs the ledger watcher (config.json watch.enabled): GET /ledger/status and /ledger/updates answer 503 LEDGER_WATCH_NOT_CONFIGURED without it',
    },
    acceptedBuilds: {
      type: 'array',
      description: 'Builds accepted beside the targets (config.json acceptedBuilds): a report is valid when its measurement equals the target or one of these; absent when none',
      items: {
        type: 'object',
        required: ['reportType', 'source'],
        properties: {
          reportType: { type: 'string', enum: REPORT_TYPES },
          source: { type: 'string', description: 'where this measurement comes from' },
          ...Object.fromEntries(KINDS.map((k) => [k.target.info.key, k.target.info.schema])),
        },
      },
    },
  },
} as const;
