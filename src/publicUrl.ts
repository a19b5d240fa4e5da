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

/** `text` with every URL in it shown as publicUrl shows it. */
export function publicText(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, publicUrl);
}
