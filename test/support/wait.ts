/**
 * Waiting for a condition that an outside process makes true (a log line written, a file
 * renamed): it is checked at every turn of a short poll, and the limit is generous, so that the
 * wait ends as soon as the event happened, on a fast or a loaded machine alike.
 */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, limitMs = 30_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`gave up after ${limitMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
