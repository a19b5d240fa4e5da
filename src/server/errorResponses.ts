/**
 * The error answers of every route, as bodies and as response schemas. One table serves the error
 * handler (which body shape a path answers with) and the OpenAPI description (an onRoute hook adds
 * each route's 4xx/5xx responses that the route does not declare itself), so the two cannot drift.
 *
 * Shapes (README "Error bodies"): `/decode` `{ success: false, errorString, errorCode }`,
 * `/decodeReport` `{ reportValid: false, outcome, errorString, errorCode }` (`outcome` by the code's
 * traits: `unverifiable` for a full pool or an internal error, `invalid` for an unreadable request), `/verify`
 * `{ success: false, validReports: [], errorMessage, errorCode }`, every other path
 * `{ errorString, errorCode }`. A request that arrives while the server closes is answered by
 * Fastify itself with `{ error, message, statusCode }`.
 */
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { classifyHttpError } from './httpErrors.js';
import { outcomeOfCode, type ErrorCode } from '../errorCodes.js';
import { outcomeSchema } from './schemas.js';

const str = { type: 'string' } as const;

const FAILURE_SCHEMAS: Record<string, object> = {
  '/decode': {
    type: 'object',
    required: ['success', 'errorString', 'errorCode'],
    properties: { success: { type: 'boolean', enum: [false] }, errorString: str, errorCode: str },
  },
  '/decodeReport': {
    type: 'object',
    required: ['reportValid', 'outcome', 'errorString', 'errorCode'],
    properties: { reportValid: { type: 'boolean', enum: [false] }, outcome: { ...outcomeSchema, enum: ['invalid', 'unverifiable'] }, errorString: str, errorCode: str },
  },
  '/verify': {
    type: 'object',
    required: ['success', 'validReports', 'errorMessage', 'errorCode'],
    properties: { success: { type: 'boolean', enum: [false] }, validReports: { type: 'array', items: { type: 'integer' }, maxItems: 0 }, errorMessage: str, errorCode: str },
  },
};

/** Body of every path without its own failure shape (also 404 on unknown paths). */
export const plainFailureSchema = {
  type: 'object',
  required: ['errorString', 'errorCode'],
  properties: { errorString: str, errorCode: str },
} as const;

/** Fastify's own answer to a request that arrives while the server is closing. */
export const closingSchema = {
  type: 'object',
  description: 'Fastify answer while the server shuts down',
  required: ['error', 'message', 'statusCode'],
  properties: { error: str, message: str, statusCode: { type: 'integer', enum: [503] } },
} as const;

/** The failure body a path answers with (keeps the route's success shape). */
export function failureBody(path: string | undefined, code: ErrorCode, message: string): Record<string, unknown> {
  if (path === '/decode') return { success: false, errorString: message, errorCode: code };
  if (path === '/decodeReport') return { reportValid: false, outcome: outcomeOfCode(code), errorString: message, errorCode: code };
  if (path === '/verify') return { success: false, validReports: [], errorMessage: message, errorCode: code };
  return { errorString: message, errorCode: code };
}

export function failureSchema(path: string): object {
  return FAILURE_SCHEMAS[path] ?? plainFailureSchema;
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
/** Paths whose handler waits for the verification pool (its capacity errors answer 503). */
const POOL_PATHS = new Set(['/decodeReport', '/verify']);

/** The error statuses a route can answer and when (README "Status codes"). */
export function errorStatuses(method: string, path: string): Record<string, string> {
  const pool = POOL_PATHS.has(path);
  const inflight = WITH_BODY.has(method) ? 'the request bytes being read or answered reached maxInflightBytes (or the address\'s maxInflightBytesPerClient), counted as bodies arrive: refused after 1 s of waiting for room, the connection closed (HTTP_INFLIGHT_LIMIT; Retry-After: 1), ' : '';
  return {
    ...(WITH_BODY.has(method)
      ? {
          400: 'The body is not valid JSON, is empty, is not a JSON object, misses a required field or nests deeper than 64 levels (HTTP_INVALID_JSON, HTTP_EMPTY_BODY, HTTP_INVALID_BODY, HTTP_BAD_CONTENT_LENGTH, HTTP_JSON_TOO_DEEP)',
          413: 'The body is larger than bodyLimit (HTTP_BODY_TOO_LARGE)',
          415: 'Content-Type is not application/json (HTTP_UNSUPPORTED_MEDIA_TYPE)',
        }
      : {}),
    405: 'Another method on this path (HTTP_METHOD_NOT_ALLOWED); the Allow header names the methods of the path',
    500: `Internal error, never expected, reported without details (INTERNAL_ERROR${pool ? ', POOL_WORKER_FAILED' : ''})${path.startsWith('/ledger/') ? "; or the ledger store failed (STORE_READ_FAILED, with SQLite's code; the server log names the file)" : ''}`,
    503: pool
      ? `The verification pool is full, timed out or closed (POOL_OVERLOADED, POOL_TASK_TIMEOUT, POOL_CLOSED; Retry-After: 1), ${inflight}or the server is shutting down`
      : inflight
        ? `The ${inflight}or the server is shutting down`
        : 'The server is shutting down',
  };
}

type ResponseSchemas = Record<string, unknown>;

/**
 * onRoute hook: adds the error responses of the route's method to its schema, keeping any status
 * the route documents itself. Routes hidden from the OpenAPI description are left alone.
 */
export function documentErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as { hide?: boolean; response?: ResponseSchemas };
  if (schema.hide) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const method = methods.find((m) => m !== 'HEAD') ?? methods[0]!;
  const failure = failureSchema(route.url);
  const response: ResponseSchemas = { ...(schema.response ?? {}) };
  for (const [status, description] of Object.entries(errorStatuses(method, route.url))) {
    if (response[status] !== undefined) continue;
    const body = status === '503' ? (POOL_PATHS.has(route.url) || WITH_BODY.has(method) ? { anyOf: [failure, closingSchema] } : closingSchema) : failure;
    response[status] = { description, ...body };
  }
  route.schema = { ...schema, response };
}

/**
 * The one error handler of the app: every thrown or validation error becomes the route's failure
 * body with its status (500s logged without details in the answer; Retry-After passed on).
 */
export function httpErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const f = classifyHttpError(err);
  if (f.status >= 500 && f.status !== 503) req.log.error({ err }, 'request failed');
  if (f.retryAfter !== undefined) void reply.header('retry-after', String(f.retryAfter));
  return reply.code(f.status).send(failureBody(req.routeOptions.url ?? req.url.split('?')[0], f.code, f.message));
}
