/**
 * JSON.parse that keeps integers above 2^53 exact: snarkOS writes `cumulative_weight` (a u128) as
 * a bare JSON number. Every bare integer of 16 digits or more, outside strings, becomes a string
 * of its digits before parsing.
 */
export function parseJsonLossless(text: string): unknown {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c >= 0x30 && c <= 0x39) {
      let j = i;
      while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const next = text[j];
      const isInteger = next !== '.' && next !== 'e' && next !== 'E' && text[i - 1] !== '-';
      if (j - i >= 16 && isInteger) {
        out += `${text.slice(last, i)}"${text.slice(i, j)}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return JSON.parse(out + text.slice(last));
}
