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
