/**
 * The JSON body parser of the app (Fastify's own, but for what it says): a body that does not parse
 * is `HTTP_INVALID_JSON`, an empty one `HTTP_EMPTY_BODY`, as before; a body that parses but holds a
 * `"__proto__"` key, or a `"constructor"` key holding `"prototype"`, is refused on purpose (such keys
 * can change the prototype of objects merged from it later), and the answer now says so
 * (`HTTP_INVALID_BODY`) instead of calling valid JSON "not valid JSON" (issue 32 item 7).
 * The keys are looked for only when the text could hold one (either name, or any \u escape, which
 * could spell one); the body's depth was bounded before (jsonDepth.ts).
 */
import { errorCodes, type FastifyRequest } from 'fastify';
import { VerifierError } from '../errors.js';

const MESSAGE = 'request body has a "__proto__" key (or "constructor" holding "prototype"): it is valid JSON, but refused on purpose, as such keys can change the prototype of objects; remove it';

function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, 'prototype'))) {
    throw new VerifierError('HTTP_INVALID_BODY', MESSAGE);
  }
  return value;
}

/** Fastify content-type parser for application/json (parseAs: 'string'). */
export function parseJsonBody(_req: FastifyRequest, text: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  if (s.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY());
  const suspicious = s.includes('__proto__') || s.includes('constructor') || s.includes('\\u');
  let body: unknown;
  try {
    body = suspicious ? JSON.parse(s, refuseProtoKeys) : JSON.parse(s);
  } catch (e) {
    return done(e instanceof VerifierError ? e : new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
  }
  done(null, body);
}
