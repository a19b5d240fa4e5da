/**
 * A URL as it may be shown to anyone (answers, stored records, logs, metric labels): scheme, host
 * and path only. Userinfo and query parameters of a configured URL can hold credentials, so they
 * never leave the process; an unreadable URL is shown as "(invalid URL)".
 */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A value given as a URL, as it may be echoed back even when it does not parse: without what
 * follows `?` or `#` and without a `user:password@` part (credentials can sit there too);
 * `hidden` says whether anything was cut.
 */
export function publicUrlText(value: string): { shown: string; hidden: boolean } {
  const cut = value.search(/[?#]/);
  let v = cut < 0 ? value : value.slice(0, cut);
  const slashes = v.indexOf('//');
  const authStart = slashes < 0 ? 0 : slashes + 2;
  const slash = v.indexOf('/', authStart);
  const authEnd = slash < 0 ? v.length : slash;
  const at = v.lastIndexOf('@', authEnd - 1);
  if (at >= authStart) v = v.slice(0, authStart) + v.slice(at + 1);
  return { shown: v, hidden: v !== value };
}

/** Whether a value begins with a scheme and `//` (`https://…`), as a base URL must. */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Why a value given as a base URL is none, with the value echoed (publicUrlText) and, for one
 * without a scheme (`api.example.com`), the https:// form to give instead; undefined for a URL.
 */
export function notAUrl(value: string): string | undefined {
  const { shown, hidden } = publicUrlText(value);
  const note = hidden ? ' (its query or credentials not shown)' : '';
  if (!HAS_SCHEME.test(value)) return `${JSON.stringify(shown)}${note} has no scheme: give ${JSON.stringify(`https://${shown}`)} (or http:// for a node without TLS)`;
  try {
    new URL(value);
    return undefined;
  } catch {
    return `${JSON.stringify(shown)}${note} is not a URL`;
  }
}

/** Shortest value treated as a secret: shorter ones ("1", "true") would blank out ordinary text. */
const MIN_SECRET_CHARS = 4;

/**
 * The values a service's configuration hides: every query parameter value of its base URL (a key a
 * gateway reads there) and every header value sent to it (its API key).
 */
export function secretsOf(baseUrl: string | undefined, headers: Record<string, string> = {}): string[] {
  let query: string[] = [];
  if (baseUrl !== undefined) {
    try {
      query = [...new URL(baseUrl).searchParams.values()];
    } catch {
      query = [];
    }
  }
  return [...query, ...Object.values(headers)].filter((v) => v.length >= MIN_SECRET_CHARS);
}

const hex = (b: number): string =>
  b
    .toString(16)
    .padStart(2, '0')
    .split('')
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');

/**
 * One character of a secret in every form a text can carry it: itself, percent-encoded (either hex
 * case, once or more: `%3D`, `%3d`, `%253D`), `+` for a space (form encoding, as URLSearchParams
 * re-encodes a query), a space for a `+` (form decoding), and JSON's escape of `"` and `\`.
 */
function charPattern(c: string): string {
  const forms = [c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')];
  forms.push([...Buffer.from(c, 'utf8')].map((b) => `%(?:25)*${hex(b)}`).join(''));
  if (c === ' ') forms.push('\\+');
  if (c === '+') forms.push(' ');
  if (c === '"' || c === '\\') forms.push(`\\\\\\${c}`);
  return `(?:${forms.join('|')})`;
}

/** A pattern matching `secret` in any mix of the forms of charPattern, or as its raw (undecoded) text. */
function secretPattern(secret: string): string {
  return [...secret].map(charPattern).join('');
}

/**
 * `text` as it may be shown to anyone: every URL in it as publicUrl shows it, and every encoding of
 * each of `secrets` (raw, percent-encoded in either hex case, `+` for space, URLSearchParams'
 * re-encoding, JSON-escaped) replaced by `[redacted]`. The one function every message built from
 * an upstream's text goes through; call it before cutting a text to length, so no part of a
 * secret straddles the cut.
 */
export function publicText(text: string, secrets: readonly string[] = []): string {
  return redactorOf(secrets)(text);
}

/** publicText bound to one service's secrets (its pattern built once). */
export function redactorOf(secrets: readonly string[]): (text: string) => string {
  const hidden = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length); // longest first
  const pattern = hidden.length === 0 ? undefined : new RegExp(hidden.map(secretPattern).join('|'), 'g');
  return (text) => {
    const shown = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, publicUrl);
    return pattern === undefined ? shown : shown.replace(pattern, '[redacted]');
  };
}

/** Where a redirect points, as a message may show it: the origin only (its path and query may carry anything). */
export function redirectTarget(location: string | null): string {
  if (location === null) return '';
  try {
    return ` to ${new URL(location).origin}`;
  } catch {
    return ' (to a relative location)';
  }
}
