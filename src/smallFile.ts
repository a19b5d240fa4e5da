/**
 * Reading a file the config names (config.json itself, a trust root, a TLS key or certificate):
 * a regular file of at most `maxBytes`. A device (`/dev/zero`, `/dev/urandom`), a FIFO or a
 * directory is refused without reading from it (a FIFO is opened non-blocking, so that startup
 * never waits for a writer), and so is a file larger than the bound: startup fails with a clear
 * line instead of hanging or filling memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The bytes of `file`, or why they cannot be had (`errno`: the system's code, when that is why). */
export function readSmallFile(file: string, maxBytes: number, what = 'a config file'): { ok: true; bytes: Buffer } | { ok: false; why: string; errno?: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code ?? String(e);
    return { ok: false, why: `cannot read the file (${errno})`, errno };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, why: `not a regular file (${st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'a socket or other special file'})` };
    if (st.size > maxBytes) return { ok: false, why: `${st.size} bytes, more than the ${maxBytes} ${what} may have` };
    const bytes = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const r = readSync(fd, bytes, n, st.size - n, n);
      if (r === 0) break;
      n += r;
    }
    return { ok: true, bytes: bytes.subarray(0, n) };
  } catch (e) {
    return { ok: false, why: `cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  } finally {
    closeSync(fd);
  }
}

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), counted without recursion. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
