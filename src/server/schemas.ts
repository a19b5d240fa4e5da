/** Route schemas: the single source for validation, serialisation and the OpenAPI description. */

const structText = (chunks: number) => ({
  type: 'string',
  description: `Ledger struct text with chunks c0…c${chunks - 1}, each with fields f0…f31 (u128)`,
});

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
  },
} as const;

export const decodeRequest = {
  type: 'object',
  required: ['userData'],
  properties: { userData: structText(8) },
} as const;

export const decodeResponse = {
  type: 'object',
  properties: {
    decodedData: decodedDataSchema,
    success: { type: 'boolean' },
    errorString: { type: 'string' },
    errorCode: { type: 'string' },
  },
} as const;

export const decodeReportRequest = {
  type: 'object',
  required: ['userData', 'report'],
  properties: {
    userData: structText(8),
    report: structText(10),
    nonce: { type: 'string', description: 'Optional typeB nonce (hex or base64) that the document must carry' },
  },
} as const;

export const decodeReportResponse = {
  type: 'object',
  properties: {
    decodedData: decodedDataSchema,
    decodedReport: { type: 'object', additionalProperties: true, description: 'Fields of the detected report kind' },
    reportValid: { type: 'boolean' },
    errorString: { type: 'string' },
    errorCode: { type: 'string' },
    reportType: { type: 'string', enum: ['typeA', 'typeB'] },
  },
} as const;

const encodedTriple = {
  type: 'object',
  properties: {
    hexEncoded: { type: 'string' },
    base64Encoded: { type: 'string' },
    ledgerEncoded: { type: 'string' },
  },
} as const;

export const infoResponse = {
  type: 'object',
  properties: {
    targetUniqueId: encodedTriple,
    targetPcrValues: {
      type: 'object',
      properties: {
        hexEncoded: { type: 'array', items: { type: 'string' } },
        base64Encoded: { type: 'array', items: { type: 'string' } },
        ledgerEncoded: { type: 'string' },
      },
    },
    liveCheckProgram: {
      type: 'string',
      nullable: true,
      description: 'Ledger program of the live check (NAME.aleo); null when liveCheck.contractName is not configured',
    },
    startTimeUTC: { type: 'string' },
  },
} as const;
