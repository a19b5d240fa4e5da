/** Typed client of the notarization and verification backends. */
export { NotarizerClient, checkAttestationShape, checkRequestEcho, type NotarizerClientOptions, type TestSelectorResult } from './client.js';
export { AttestationError, AttestationIntegrityError, ClientError, NotarizationError, RequestValidationError } from './errors.js';
export { DEFAULT_CLIENT_HEADERS, MASK, NEVER_MASKED_HEADERS, isNeverMasked, maskHeaders, mergeRequestHeaders } from './headers.js';
export { parseNotarizerInfo, targetsFromInfo, type NotarizerInfoRecord, type TypeAInfoRecord, type TypeBInfoRecord, type TypeBDocument } from './info.js';
export {
  MAX_FIELD_BYTES, MAX_PRECISION, ValidationCodes, isPlausibleXPath, isValidJsonKeyPath, targetHost, truncateFloat,
  validateAttestationRequest, type ValidateOptions, type ValidationCode,
} from './validate.js';
export * from './types.js';
