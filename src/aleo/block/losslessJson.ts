/**
 * JSON.parse that keeps integers above 2^53 exact: snarkOS writes `cumulative_weight` (a u128) as
 * a bare JSON number. Every bare integer of 16 digits or more, outside strings, becomes a string
 * of its digits before parsing. Strings are skipped with indexOf (their closing quote, its
 * preceding backslashes counted), so only the bytes between them are looked at.
 */
const LONG_INTEGER = /(^|[^0-9.eE+\-])(-?[0-9]{16,})(?![0-9.eE])/g;

export function parseJsonLossless(text: string): unknown {
  const parts: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const q = text.indexOf('"', i);
    const end = q < 0 ? n : q;
    const between = text.slice(i, end);
    parts.push(between.length >= 16 ? between.replace(LONG_INTEGER, '$1"$2"') : between);
    if (q < 0) break;
    // The string's closing quote: the next quote not escaped (preceded by an even run of backslashes).
    let k = q;
    for (;;) {
      k = text.indexOf('"', k + 1);
      if (k < 0) {
        k = n - 1; // unterminated: JSON.parse reports it
        break;
      }
      let backslashes = 0;
      while (text.charCodeAt(k - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    parts.push(text.slice(q, k + 1));
    i = k + 1;
  }
  return JSON.parse(parts.join(''));
}

/** The header's u128 members, which snarkOS writes as bare JSON numbers. */
const HEADER_U128 = ['cumulative_weight', 'cumulative_proof_target'] as const;

/**
 * A block (or blocks) read at JSON.parse speed (≈ 10× parseJsonLossless on a mainnet block): only
 * the header's u128 members are taken exact from the text. Each must occur once as a key, its
 * digits equal to what JSON.parse read; otherwise the whole text is read by parseJsonLossless.
 */
export function parseBlockJson(text: string): unknown {
  const v = JSON.parse(text) as unknown;
  const meta = (v as { header?: { metadata?: Record<string, unknown> } } | null)?.header?.metadata;
  if (typeof meta !== 'object' || meta === null) return v;
  for (const key of HEADER_U128) {
    const parsed = meta[key];
    if (typeof parsed !== 'number' || Number.isSafeInteger(parsed)) continue;
    const hits = [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*(-?[0-9]+)(?![0-9.eE])`, 'g'))];
    if (hits.length !== 1 || Number(hits[0]![1]) !== parsed) return parseJsonLossless(text);
    meta[key] = hits[0]![1];
  }
  return v;
}
