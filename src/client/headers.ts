/**
 * Request headers of an attestation: the client's default headers and the notarizer's masking
 * rule (notarizer-client-ledger.md §1 "Header masking rule").
 */

/**
 * Header names whose values the notarizer never masks (49 names, compared case-insensitively).
 * `Access-Control-Request-Headers` is spelled with the final "s" as in the HTTP standard; the
 * documentation's spelling without it is accepted too, so that either form stays unmasked.
 */
export const NEVER_MASKED_HEADERS: readonly string[] = Object.freeze([
  'Accept', 'Accept-Charset', 'Accept-Datetime', 'Accept-Encoding', 'Accept-Language',
  'Access-Control-Request-Method', 'Access-Control-Request-Headers', 'Cache-Control', 'Connection',
  'Content-Encoding', 'Content-Length', 'Content-MD5', 'Content-Type', 'Date', 'Expect', 'Forwarded',
  'Host', 'HTTP2-Settings', 'If-Match', 'If-Modified-Since', 'If-None-Match', 'If-Range',
  'If-Unmodified-Since', 'Max-Forwards', 'Origin', 'Pragma', 'Prefer', 'Range', 'Referer', 'TE',
  'Trailer', 'Transfer-Encoding', 'User-Agent', 'Upgrade', 'Via', 'Warning', 'Upgrade-Insecure-Requests',
  'X-Requested-With', 'DNT', 'X-Forwarded-For', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'Front-End-Https',
  'X-Http-Method-Override', 'X-ATT-DeviceId', 'X-Wap-Profile', 'Proxy-Connection', 'Save-Data', 'Sec-GPC',
]);

const NEVER_MASKED = new Set([...NEVER_MASKED_HEADERS.map((h) => h.toLowerCase()), 'access-control-request-header']);

/** The replacement the notarizer writes for masked header values. */
export const MASK = '*****';

export function isNeverMasked(name: string): boolean {
  return NEVER_MASKED.has(name.toLowerCase());
}

/**
 * The headers as they appear in the attestation (and are hashed into the report data): values of
 * names outside the never-masked list are replaced with `mask`. Names are kept as given.
 */
export function maskHeaders(headers: Readonly<Record<string, string>> | undefined, mask: string = MASK): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k] = isNeverMasked(k) ? v : mask;
  return out;
}

/** Headers the client adds to every attestation request unless the user overrides them. */
export const DEFAULT_CLIENT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  Accept: '*/*',
  'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Safari/537.36',
  'Upgrade-Insecure-Requests': '1',
  DNT: '1',
});

/**
 * `{...DEFAULT_CLIENT_HEADERS, ...user}`, exactly the official JS SDK's semantics: keys are compared
 * case-sensitively, so a user `user-agent` does NOT replace the default `User-Agent` (both are sent;
 * write the default's spelling to override it). User values always win for the same spelling.
 */
export function mergeRequestHeaders(user: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { ...DEFAULT_CLIENT_HEADERS, ...(user ?? {}) };
}
