/**
 * HTTP status mapping for requests that could not be read (documented in README "Status codes"):
 * 400 invalid JSON or body shape, 413 body over the limit, 415 content type not JSON,
 * 405 known path with another method, 503 verification pool full/timed out/closed, 500 with the
 * store's code when the ledger store fails, 500 anything else. A request that was read but does not decode or verify answers 200 with the failure in the
 * body. Every message is a sentence; JSON types are named with their article ("an array").
 */
import type { FastifyError } from 'fastify';
import { domainOf, traitsOf, type ErrorCode } from '../errorCodes.js';
import { isVerifierError } from '../errors.js';
import { aTypeName } from '../typeNames.js';

export interface HttpFailure {
  status: number;
  code: ErrorCode;
  message: string;
  retryAfter?: number;
}

export function classifyHttpError(err: FastifyError): HttpFailure {
  const schemaFailure = err.validation !== undefined;
  if (isVerifierError(err)) {
    // The verification pool refused or dropped the work (its capacity): the request itself may be fine.
    const t = traitsOf(err.code);
    if (t.refused) return { status: t.status, code: err.code, message: err.message, ...(t.status === 503 ? { retryAfter: 1 } : {}) };
    // A schema error a route names with its own code (POST /verify's report count).
    if (schemaFailure) return { status: 400, code: err.code, message: err.message };
    // A request the server's own checks refused while reading it (a body nested too deep), or an
    // answer it cannot give in the form asked (an EAR without a signing key).
    if (domainOf(err.code) === 'http' || domainOf(err.code) === 'ear') return { status: t.status, code: err.code, message: err.message };
    // The ledger store failed under a route (a corrupt or vanished file, a full disk): its code, and
    // SQLite's (the cause's own code, never read from the message, which holds the file's path), but
    // not the file's path (the server log has the whole message).
    if (domainOf(err.code) === 'store') {
      const cause = (err as { cause?: { code?: unknown } }).cause?.code;
      const sqlite = typeof cause === 'string' && /^SQLITE_[A-Z_]+$/.test(cause) ? cause : undefined;
      return { status: t.status, code: err.code, message: `the ledger store failed${sqlite ? ` (${sqlite})` : ''}; the server log names the file and the cause` };
    }
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return failure('HTTP_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return failure('HTTP_BAD_CONTENT_LENGTH', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return failure('HTTP_BODY_TOO_LARGE', 'request body is larger than the limit');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return failure('HTTP_EMPTY_BODY', 'request body is empty; expected a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // Fastify's message ("Body is not valid JSON but content-type is set to …") only repeats it.
      return invalidJson();
    default:
      break;
  }
  if (err.validation) return failure('HTTP_INVALID_BODY', describeValidation(err));
  if (err instanceof SyntaxError) return invalidJson(err.message);
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  return status === 500 ? failure('INTERNAL_ERROR', 'internal error') : { status, code: 'HTTP_BAD_REQUEST', message: err.message };
}

/**
 * A body that does not parse as JSON, said once: the parser's detail is added only when it says
 * more (V8's "Unexpected token 'x', "x" is not valid JSON" says nothing more).
 */
function invalidJson(detail?: string): HttpFailure {
  const more = detail !== undefined && detail !== '' && !/not valid JSON/i.test(detail);
  return failure('HTTP_INVALID_JSON', more ? `request body is not valid JSON: ${detail}` : 'request body is not valid JSON');
}

/** The failure of `code` with the HTTP status of its traits. */
function failure(code: ErrorCode, message: string): HttpFailure {
  return { status: traitsOf(code).status, code, message };
}

/** One sentence for the first schema violation of a request body. */
function describeValidation(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return `invalid request body: ${err.message}`;
  const params = v.params as { missingProperty?: string; type?: unknown; allowedValues?: unknown[] };
  // The JSON pointer of the field without its leading slash: `reports/6/oracleData/userData`.
  const path = v.instancePath.slice(1);
  // The offending value (Ajv's `verbose` option, set in app.ts).
  const data = (v as { data?: unknown }).data;
  const got = jsonKind(data);
  if (v.keyword === 'type' && path === '') return `request body must be a JSON object, got ${got}`;
  if (v.keyword === 'required') return `missing field "${path ? `${path}/` : ''}${params.missingProperty}"`;
  if (v.keyword === 'type') return `field "${path}" must be ${aTypeName(params.type)}, got ${got}`;
  if (v.keyword === 'enum' && params.allowedValues) {
    const value = typeof data === 'string' ? JSON.stringify(data.length > 40 ? `${data.slice(0, 40)}…` : data) : got;
    return `field "${path}" must be ${params.allowedValues.map((a) => JSON.stringify(a)).join(' or ')}, got ${value}`;
  }
  return `invalid request body: ${path ? `field "${path}" ` : ''}${v.message ?? err.message}`;
}

/** The kind of a parsed JSON value, with its article: "an array", "null", "a string". */
function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v === undefined) return 'nothing';
  return aTypeName(typeof v);
}
