/**
 * The fast path of the structural `/blocks` reader (./walkBlocksJson.ts): one JSON value skipped, its
 * grammar checked, sixteen bytes at a time by a small WebAssembly SIMD module (./jsonSkip.wat,
 * assembled into src/generated/jsonSkip.wasm.b64.ts). On a mainnet block that is the authority, ≈ 97 % of the
 * bytes, which the JavaScript reader walks string by string (one `indexOf` call each).
 *
 * The module reads its own memory. A body read into a buffer from `skipBodyBuffer` already lies in
 * a memory of its own module instance, and is read where it lies. Any other body is copied there a
 * window at a time (1 MiB, about three mainnet blocks: one copy of each byte, while the next skip
 * reads it from cache). A value that runs past the window is tried again in a window starting at
 * it, twice as long, up to 8 MiB; past that, or where the module answers -1 (not JSON, a raw
 * control character in a string, nesting deeper than 4095), the caller's JavaScript reader
 * decides and names the error. So this path only ever makes the reader faster: the answer and
 * every error are the JavaScript reader's.
 */
import { JSON_SKIP_WASM_BASE64 } from '../../../generated/jsonSkip.wasm.b64.js';

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

/** The compiled module, once per thread; null where WebAssembly SIMD is unavailable. */
let compiled: { api: WasmApi; module: object } | null | undefined;
/** The instance that windows of bodies in ordinary buffers are copied into. */
let shared: Instance | null | undefined;
/** The instances whose memory holds a body buffer (skipBodyBuffer), by that memory. */
const bodyInstances = new WeakMap<ArrayBuffer, Instance>();

/** A new instance of the module with at least `bytes` of memory (its ArrayBuffer no longer changes after), or null. */
function instantiate(bytes: number): Instance | null {
  if (compiled === undefined) {
    try {
      const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
      compiled = { api, module: new api.Module(Buffer.from(JSON_SKIP_WASM_BASE64, 'base64')) };
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  const ex = new compiled.api.Instance(compiled.module, {}).exports as Exports;
  const have = ex.memory.buffer.byteLength;
  if (have < bytes) ex.memory.grow(Math.ceil((bytes - have) / PAGE));
  return { ex, mem: new Uint8Array(ex.memory.buffer), owner: undefined };
}

function loaded(): Instance | null {
  if (shared === undefined) shared = instantiate(0);
  return shared;
}

/**
 * A buffer of `n` bytes for a body that a skipper will read (the ledger node's body pool): it lies
 * in the memory of a module instance of its own, with room for the zeros after it, so that its
 * skipper reads it where it lies, no copy. An ordinary buffer where WebAssembly cannot run or its
 * memory cannot grow that far.
 */
export function skipBodyBuffer(n: number): Buffer {
  let w: Instance | null;
  try {
    w = instantiate(DATA + n + PAD);
  } catch {
    w = null;
  }
  if (!w) return Buffer.allocUnsafeSlow(n);
  bodyInstances.set(w.ex.memory.buffer, w);
  return Buffer.from(w.ex.memory.buffer, DATA, n);
}

/**
 * A skipper over a body that lies at DATA in its own instance's memory. The zeros go after its last
 * byte at each skip: while the body arrives those are bytes not landed yet, which a landing between
 * two skips writes over.
 */
function inPlace(w: Instance, body: Uint8Array): JsonSkipper {
  const end = DATA + body.length;
  return {
    skip(p) {
      if (p >= body.length) return -1;
      w.mem.fill(0, end, end + PAD);
      const r = w.ex.skip(DATA + p);
      return r < 0 ? -1 : r - DATA;
    },
  };
}

/** The instance whose memory holds `body` where its skipper reads it in place (the start of a `skipBodyBuffer`, with room for the zeros), if any. */
function homeOf(body: Uint8Array): Instance | undefined {
  const own = bodyInstances.get(body.buffer as ArrayBuffer);
  return own && body.byteOffset === DATA && DATA + body.length + PAD <= own.mem.length ? own : undefined;
}

/** Whether a skipper reads `body` where it lies (no copy): a view from the start of a `skipBodyBuffer`. */
export const readsInPlace = (body: Uint8Array): boolean => homeOf(body) !== undefined;

/** A skipper over one body, or undefined where the module cannot run (the JavaScript reader alone then). */
export function createJsonSkipper(body: Uint8Array, o: JsonSkipOptions = {}): JsonSkipper | undefined {
  const own = homeOf(body);
  if (own) return inPlace(own, body);
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
