/**
 * The answer schema of POST /decodeReport (and the decoded views /decode shares): plain data, so it
 * lives beside decodeReportBody.ts and the verification worker can serialise an answer with it
 * (decodeReportAnswer.ts). src/server/schemas.ts re-exports it for the route and /docs/json: one
 * source for the route's serialiser, the worker's and the OpenAPI description.
 */
import { REPORT_TYPES } from './kinds/index.js';

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
