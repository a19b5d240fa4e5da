/** Route schemas: the single source for validation, serialisation and the OpenAPI description. */

import { USER_DATA_CHUNK_COUNTS } from '../encoding/eras/index.js';
import { KINDS, REPORT_TYPES } from '../verify/kinds/index.js';
import { decodedDataSchema, decodedRequestsSchema } from '../verify/decodeReportSchema.js';

// POST /decodeReport's answer schema lives beside the answer it describes (the verification
// worker serialises answers with it); re-exported here so that routes and docs read one place.
export { checksSchema, decodedDataSchema, decodedRequestsSchema, decodeReportResponse, outcomeSchema } from '../verify/decodeReportSchema.js';

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
