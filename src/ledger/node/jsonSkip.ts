/**
 * The fast path of the structural `/blocks` reader (./blocksBody.ts): one JSON value skipped, its
 * grammar checked, sixteen bytes at a time by a small WebAssembly SIMD module (./jsonSkip.wat,
 * assembled into ./jsonSkip.wasm.b64.ts). On a mainnet block that is the authority, ≈ 97 % of the
 * bytes, which the JavaScript reader walks string by string (one `indexOf` call each).
 *
 * The module reads its own memory, so the body is copied there a window at a time (1 MiB, about
 * three mainnet blocks: one copy of each byte, while the next skip reads it from cache). A value
 * that runs past the window is tried again in a window starting at it, twice as long, up to 8 MiB;
 * past that, or where the module answers -1 (not JSON, a raw control character in a string,
 * nesting deeper than 4095), the caller's JavaScript reader decides and names the error. So this
 * path only ever makes the reader faster: the answer and every error are the JavaScript reader's.
 */
import { JSON_SKIP_WASM_BASE64 } from './jsonSkip.wasm.b64.js';

/** Skips the value at `p` (after whitespace): the position after it, or -1 when the caller must decide. */
export interface JsonSkipper {
  skip(p: number): number;
}

export interface JsonSkipOptions {
  /** First window, bytes (default 1 MiB; tests make it small to cross windows). */
  window?: number;
  /** Longest window before leaving a value to the caller (default 8 MiB). */
  maxWindow?: number;
}

/** Where the module expects the window (bytes below are its stack of open containers). */
const DATA = 4096;
/** Zero bytes written after a window: the module stops at the first one, and loads 16 bytes at most past it. */
const PAD = 32;
const PAGE = 65536;

/** The slice of the WebAssembly JS API used here (the project's TS lib has no DOM/WebAssembly types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
interface Exports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  skip(p: number): number;
}

interface Instance {
  ex: Exports;
  mem: Uint8Array;
  /** The skipper whose window the memory holds. */
  owner: object | undefined;
}

let instance: Instance | null | undefined;

/** The module, instantiated once per thread; null where WebAssembly SIMD is unavailable. */
function loaded(): Instance | null {
  if (instance !== undefined) return instance;
  try {
    const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const ex = new api.Instance(new api.Module(Buffer.from(JSON_SKIP_WASM_BASE64, 'base64')), {}).exports as Exports;
    instance = { ex, mem: new Uint8Array(ex.memory.buffer), owner: undefined };
  } catch {
    instance = null;
  }
  return instance;
}

/** A skipper over one body, or undefined where the module cannot run (the JavaScript reader alone then). */
export function createJsonSkipper(body: Uint8Array, o: JsonSkipOptions = {}): JsonSkipper | undefined {
  const w = loaded();
  if (!w) return undefined;
  const maxWindow = o.maxWindow ?? 8 << 20;
  let window = Math.min(o.window ?? 1 << 20, maxWindow);
  let base = 0;
  let end = 0;
  const self: JsonSkipper = {
    skip(p) {
      if (w.owner !== self || p < base || p >= end) copy(p);
      for (;;) {
        const r = w.ex.skip(DATA + p - base);
        const at = r - DATA + base;
        // A value ending at the window's end may go on past it (a number): accepted only at the body's end.
        if (r >= 0 && (at < end || end === body.length)) return at;
        if (end === body.length) return -1;
        if (base === p) {
          if (window >= maxWindow) return -1;
          window = Math.min(window * 2, maxWindow);
        }
        copy(p);
      }
    },
  };
  const copy = (p: number): void => {
    const n = Math.min(window, body.length - p);
    const need = DATA + n + PAD;
    if (w.mem.length < need) {
      w.ex.memory.grow(Math.ceil((need - w.mem.length) / PAGE));
      w.mem = new Uint8Array(w.ex.memory.buffer);
    }
    w.mem.set(body.subarray(p, p + n), DATA);
    w.mem.fill(0, DATA + n, need);
    base = p;
    end = p + n;
    w.owner = self;
  };
  return self;
}
