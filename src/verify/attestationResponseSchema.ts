/**
 * One notarizer AttestationResponse as POST /verify receives it (notarizer-client-ledger.md §2;
 * both SDK generations): the JSON schema the route validates every entry with (and /docs/json
 * shows), and its TypeScript type, derived from the schema. Unknown fields are allowed (the SDKs
 * send more than the verifier reads, e.g. `enclaveUrl`, `responseBody`). Objects and arrays that a
 * Go client leaves nil may be `null` (read as absent). Which fields must be present for a check is
 * not a matter of shape (single- or multi-request response, with or without oracleData): the
 * per-entry checks of src/verify/attestationResponse.ts decide that.
 */
import type { JsonSchemaType } from '../jsonSchemaType.js';
import { WIRE_REPORT_TYPES } from './kinds/index.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

export const encodingOptionsSchema = {
  type: 'object',
  required: ['value'],
  properties: {
    value: { type: 'string', description: 'string, int or float' },
    precision: { type: 'integer', minimum: 0, description: 'Fraction digits kept for float' },
  },
} as const;

/** The request a notarizer attested, echoed in its response (header values already masked). */
export const attestationRequestSchema = {
  type: 'object',
  required: ['url', 'requestMethod', 'responseFormat', 'encodingOptions'],
  properties: {
    url: { type: 'string', description: 'Target without scheme, or a price_feed pseudo-URL' },
    requestMethod: str,
    selector: str,
    responseFormat: str,
    htmlResultType: str,
    requestBody: str,
    requestContentType: str,
    requestHeaders: { type: 'object', nullable: true, additionalProperties: str },
    encodingOptions: encodingOptionsSchema,
  },
} as const;

/** The fields of one attested request: at the top level, or per result of a multi-request response. */
const requestFields = {
  attestationRequest: attestationRequestSchema,
  attestationData: { type: 'string', description: 'The extracted value as the notarizer attested it' },
  responseStatusCode: int,
  timestamp: { type: 'integer', description: 'Unix seconds' },
  responseBody: str,
} as const;

/** One request of a second-generation multi-request response (one userData chunk each). */
export const attestationResultSchema = {
  type: 'object',
  required: ['attestationRequest', 'attestationData', 'responseStatusCode', 'timestamp'],
  properties: { ...requestFields, requestHash: str },
} as const;

/** The ledger-side data of the attestation. */
export const oracleDataSchema = {
  type: 'object',
  nullable: true,
  properties: {
    userData: { type: 'string', description: 'ReportData struct text: 8 or 10 chunks c0…, each with fields f0…f31 (u128)' },
    report: { type: 'string', description: 'Report struct text: 10 chunks' },
    signature: str,
    address: str,
    encodedRequest: str,
    requestHash: str,
    timestampedRequestHash: str,
    encodedPositions: { type: 'object', nullable: true, additionalProperties: { type: 'object', properties: { Pos: int, Len: int } } },
    reportExtras: { type: 'object', nullable: true, additionalProperties: str },
  },
} as const;

export const attestationResponseSchema = {
  type: 'object',
  title: 'AttestationResponse',
  description:
    'A notarizer response as the SDKs send it: single-request (request fields at the top level) or multi-request (attestationResults, top-level request fields absent)',
  required: ['reportType'],
  properties: {
    reportType: { type: 'string', enum: WIRE_REPORT_TYPES },
    attestationReport: { type: 'string', description: 'base64: the SGX remote report or the Nitro COSE document' },
    nonce: { type: 'string', description: 'Nitro: the document nonce (hex)' },
    enclaveUrl: str,
    ...requestFields,
    attestationResults: { type: 'array', nullable: true, items: attestationResultSchema },
    oracleData: oracleDataSchema,
  },
} as const;

export type AttestationRequestEcho = JsonSchemaType<typeof attestationRequestSchema>;
export type AttestationResult = JsonSchemaType<typeof attestationResultSchema>;
export type AttestationResponse = JsonSchemaType<typeof attestationResponseSchema>;
