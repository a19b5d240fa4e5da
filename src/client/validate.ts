/**
 * Client-side validation of attestation requests (service-spec.md "Attestation request",
 * notarizer-client-ledger.md §1) and the float precision rule.
 */
import { truncateFloatString } from '../encoding/float.js';
import { RequestValidationError } from './errors.js';
import type { AttestationRequest } from './types.js';

export const MAX_FIELD_BYTES = 4096;
export const MAX_PRECISION = 12;

/** Stable codes of the validation failures, with the notarizer's numeric code where it has one. */
export const ValidationCodes = {
  BAD_REQUEST: 100,
  URL_REQUIRED: 101,
  URL_HAS_SCHEME: 102,
  URL_INVALID: 100,
  METHOD_REQUIRED: 110,
  METHOD_INVALID: 111,
  FORMAT_REQUIRED: 112,
  FORMAT_INVALID: 113,
  HTML_RESULT_TYPE_REQUIRED: 114,
  HTML_RESULT_TYPE_INVALID: 115,
  HTML_RESULT_TYPE_NOT_HTML: undefined,
  SELECTOR_INVALID_XPATH: 116,
  SELECTOR_INVALID_JSON_PATH: 222,
  BODY_REQUIRED: 120,
  CONTENT_TYPE_REQUIRED: 121,
  BODY_WITHOUT_POST: undefined,
  CONTENT_TYPE_WITHOUT_POST: undefined,
  FIELD_TOO_LONG: 130,
  HEADERS_INVALID: 100,
  ENCODING_REQUIRED: 142,
  ENCODING_VALUE_REQUIRED: 142,
  ENCODING_VALUE_INVALID: 140,
  PRECISION_REQUIRED: 143,
  PRECISION_TOO_BIG: 141,
  PRECISION_INVALID: undefined,
  NOT_WHITELISTED: 390,
} as const satisfies Record<string, number | undefined>;
export type ValidationCode = keyof typeof ValidationCodes;

function fail(code: ValidationCode, field: string, message: string): never {
  throw new RequestValidationError(code, field, message, ValidationCodes[code]);
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

function checkLength(field: string, s: string): void {
  const n = utf8Length(s);
  if (n > MAX_FIELD_BYTES) fail('FIELD_TOO_LONG', field, `is ${n} bytes, at most ${MAX_FIELD_BYTES} are allowed`);
}

function optionalString(req: Record<string, unknown>, field: string): string | undefined {
  const v = req[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail('BAD_REQUEST', field, `must be a string, got ${typeof v}`);
  checkLength(field, v);
  return v;
}

/**
 * JSON key path: dot-separated segments, each a key (no `.`, `[`, `]`, not empty) or an array
 * index written as its own segment `[<n>]` (`daily.rain_sum.[0]`, not `rain_sum[0]`).
 */
export function isValidJsonKeyPath(selector: string): boolean {
  if (selector === '') return true;
  return selector.split('.').every((seg) => /^\[(0|[1-9][0-9]*)\]$/.test(seg) || (seg.length > 0 && !/[[\]]/.test(seg) && !/^\s|\s$/.test(seg)));
}

/**
 * Cheap XPath sanity check (not a full parser): a location path or a parenthesised/function
 * expression, balanced brackets and parentheses outside string literals, closed quotes, no
 * empty steps (`///`), no trailing `/` except the root path itself.
 */
export function isPlausibleXPath(selector: string): boolean {
  const s = selector.trim();
  if (s === '') return true;
  if (!/^(\/|\.|\(|[A-Za-z_*@])/.test(s)) return false;
  if (s.includes('///')) return false;
  if (s.length > 1 && s.endsWith('/')) return false;
  const stack: string[] = [];
  let quote: string | undefined;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') stack.push(ch);
    else if (ch === ']' || ch === ')') {
      const open = stack.pop();
      if ((ch === ']' && open !== '[') || (ch === ')' && open !== '(')) return false;
    } else if (ch === '\n' || ch === '\r') return false;
  }
  if (quote || stack.length) return false;
  if (/\[\s*\]/.test(s)) return false; // empty predicate
  return true;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The lower-cased host of a scheme-less target URL; throws when it cannot be parsed. */
export function targetHost(url: string): string {
  let u: URL;
  try {
    u = new URL(`https://${url}`);
  } catch {
    fail('URL_INVALID', 'url', `${JSON.stringify(url)} is not a valid host[/path] (without scheme)`);
  }
  if (!u.hostname) fail('URL_INVALID', 'url', `${JSON.stringify(url)} has no host`);
  return u.hostname.toLowerCase();
}

export interface ValidateOptions {
  /** When given, the target host must be on it (exact host name, case-insensitive). */
  whitelist?: readonly string[];
}

/**
 * Checks every rule of the attestation request interface; throws a RequestValidationError for
 * the first rule broken. Returns the request typed.
 */
export function validateAttestationRequest(req: unknown, opts: ValidateOptions = {}): AttestationRequest {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) fail('BAD_REQUEST', 'request', 'must be an object');
  const r = req as Record<string, unknown>;

  // url
  if (r.url === undefined || r.url === null || r.url === '') fail('URL_REQUIRED', 'url', 'is required');
  if (typeof r.url !== 'string') fail('BAD_REQUEST', 'url', 'must be a string');
  const url = r.url;
  checkLength('url', url);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || url.startsWith('//')) {
    fail('URL_HAS_SCHEME', 'url', `must not contain a scheme (HTTPS is assumed): ${JSON.stringify(url)}`);
  }
  if (/\s/.test(url)) fail('URL_INVALID', 'url', 'must not contain whitespace');
  const host = targetHost(url);
  if (opts.whitelist && !opts.whitelist.some((h) => h.toLowerCase() === host)) {
    fail('NOT_WHITELISTED', 'url', `host ${host} is not on the notarizer whitelist`);
  }

  // method
  if (r.requestMethod === undefined || r.requestMethod === null || r.requestMethod === '') fail('METHOD_REQUIRED', 'requestMethod', 'is required');
  if (r.requestMethod !== 'GET' && r.requestMethod !== 'POST') fail('METHOD_INVALID', 'requestMethod', `must be GET or POST, got ${JSON.stringify(r.requestMethod)}`);
  const method = r.requestMethod;

  // format
  if (r.responseFormat === undefined || r.responseFormat === null || r.responseFormat === '') fail('FORMAT_REQUIRED', 'responseFormat', 'is required');
  if (r.responseFormat !== 'json' && r.responseFormat !== 'html') fail('FORMAT_INVALID', 'responseFormat', `must be json or html, got ${JSON.stringify(r.responseFormat)}`);
  const format = r.responseFormat;

  // htmlResultType
  const hrt = r.htmlResultType;
  if (format === 'html') {
    if (hrt === undefined || hrt === null || hrt === '') fail('HTML_RESULT_TYPE_REQUIRED', 'htmlResultType', 'is required when responseFormat is html');
    if (hrt !== 'element' && hrt !== 'value') fail('HTML_RESULT_TYPE_INVALID', 'htmlResultType', `must be element or value, got ${JSON.stringify(hrt)}`);
  } else if (hrt !== undefined && hrt !== null && hrt !== '') {
    fail('HTML_RESULT_TYPE_NOT_HTML', 'htmlResultType', 'applies only when responseFormat is html');
  }

  // selector
  const selector = optionalString(r, 'selector');
  if (selector !== undefined) {
    if (format === 'json' && !isValidJsonKeyPath(selector)) {
      fail('SELECTOR_INVALID_JSON_PATH', 'selector', `${JSON.stringify(selector)} is not a JSON key path (dot-separated keys, array index as its own segment: a.b.[0])`);
    }
    if (format === 'html' && !isPlausibleXPath(selector)) fail('SELECTOR_INVALID_XPATH', 'selector', `${JSON.stringify(selector)} is not a valid XPath expression`);
  }

  // body and content type
  const body = optionalString(r, 'requestBody');
  const contentType = optionalString(r, 'requestContentType');
  if (method === 'POST') {
    if (body === undefined) fail('BODY_REQUIRED', 'requestBody', 'is required for POST');
    if (contentType === undefined || contentType === '') fail('CONTENT_TYPE_REQUIRED', 'requestContentType', 'is required for POST');
  } else {
    if (body !== undefined && body !== '') fail('BODY_WITHOUT_POST', 'requestBody', 'is only allowed with POST');
    if (contentType !== undefined && contentType !== '') fail('CONTENT_TYPE_WITHOUT_POST', 'requestContentType', 'is only allowed with POST');
  }

  // headers
  if (r.requestHeaders !== undefined && r.requestHeaders !== null) {
    const h = r.requestHeaders;
    if (typeof h !== 'object' || Array.isArray(h)) fail('HEADERS_INVALID', 'requestHeaders', 'must be an object of strings');
    for (const [k, v] of Object.entries(h as Record<string, unknown>)) {
      if (!TOKEN.test(k)) fail('HEADERS_INVALID', `requestHeaders.${k}`, 'header name is not an HTTP token');
      if (typeof v !== 'string') fail('HEADERS_INVALID', `requestHeaders.${k}`, 'value must be a string');
      if (/[\r\n\0]/.test(v)) fail('HEADERS_INVALID', `requestHeaders.${k}`, 'value must not contain CR, LF or NUL');
      checkLength(`requestHeaders.${k}`, v);
    }
  }

  // encoding options
  const eo = r.encodingOptions;
  if (eo === undefined || eo === null) fail('ENCODING_REQUIRED', 'encodingOptions', 'is required');
  if (typeof eo !== 'object' || Array.isArray(eo)) fail('BAD_REQUEST', 'encodingOptions', 'must be an object');
  const { value, precision } = eo as Record<string, unknown>;
  if (value === undefined || value === null || value === '') fail('ENCODING_VALUE_REQUIRED', 'encodingOptions.value', 'is required');
  if (value !== 'string' && value !== 'int' && value !== 'float') fail('ENCODING_VALUE_INVALID', 'encodingOptions.value', `must be string, int or float, got ${JSON.stringify(value)}`);
  if (value === 'float' && (precision === undefined || precision === null)) fail('PRECISION_REQUIRED', 'encodingOptions.precision', 'is required for float');
  if (precision !== undefined && precision !== null) {
    if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 0) {
      fail('PRECISION_INVALID', 'encodingOptions.precision', `must be a non-negative integer, got ${JSON.stringify(precision)}`);
    }
    if (precision > MAX_PRECISION) fail('PRECISION_TOO_BIG', 'encodingOptions.precision', `${precision} exceeds the maximum of ${MAX_PRECISION}`);
  }
  return r as unknown as AttestationRequest;
}

/**
 * Applies the precision rule to a decimal string: a fractional part longer than `precision` is
 * cut (never rounded) to `precision` digits, a shorter one is kept, precision 0 drops it.
 */
export function truncateFloat(value: string, precision: number): string {
  if (!Number.isInteger(precision) || precision < 0 || precision > MAX_PRECISION) {
    throw new RangeError(`truncateFloat: precision must be an integer in 0..${MAX_PRECISION}, got ${precision}`);
  }
  if (!/^[0-9]+(\.[0-9]*)?$/.test(value)) throw new RangeError(`truncateFloat: ${JSON.stringify(value)} is not an unsigned decimal number`);
  return truncateFloatString(value, precision);
}
