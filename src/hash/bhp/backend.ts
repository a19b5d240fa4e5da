/**
 * The BHP implementation the service uses, chosen once per thread at import:
 *   1. `native`: the native addon's BHP (native/bhp.c, native.ts), when the addon loads and has
 *      the BHP entry points;
 *   2. `portable`: the TypeScript BigInt hasher (hasher.ts, merkle.ts), everywhere.
 * Both give the same hashes (test/unit/hash/bhp/native.test.ts, against snarkVM's WASM too).
 * VERIFIER_BHP_BACKEND=portable forces the portable one; =native asks for the native one (when it
 * cannot load, the portable one is used and the reason says why); unset or any other value: the
 * native one when it loads. `bhpBackendName` tells which one is active and `bhpBackendReason` why.
 */
import { bhpHashBits, BHP1024, BHP512, type BhpParameters } from './hasher.js';
import { merkleRoot, type MerkleHashers } from './merkle.js';
import { createBhpNative } from './native.js';
import { tablesOf } from './tables.js';

export const BHP_BACKEND_NAMES = ['native', 'portable'] as const;
export type BhpBackendName = (typeof BHP_BACKEND_NAMES)[number];

/** The environment variable that forces a backend (see above); unset: native when it loads. */
export const BHP_BACKEND_ENV = 'VERIFIER_BHP_BACKEND';

export interface BhpBackend {
  readonly name: BhpBackendName;
  /** Why this backend (e.g. "native addon loaded", "VERIFIER_BHP_BACKEND=portable", "native addon unavailable: …"). */
  readonly reason: string;
  hash(params: BhpParameters, bits: Uint8Array): bigint;
  hashMany(params: BhpParameters, list: readonly Uint8Array[]): bigint[];
  merkleRoot(depth: number, leaves: readonly Uint8Array[]): bigint;
}

export interface SelectBhpOptions {
  /** Another addon file (tests). */
  addonPath?: string;
}

const PORTABLE_HASHERS: MerkleHashers = {
  leaf: (bits) => bhpHashBits(tablesOf(BHP1024), bits),
  node: (bits) => bhpHashBits(tablesOf(BHP512), bits),
};

function portable(reason: string): BhpBackend {
  return {
    name: 'portable',
    reason,
    hash: (params, bits) => bhpHashBits(tablesOf(params), bits),
    hashMany: (params, list) => list.map((bits) => bhpHashBits(tablesOf(params), bits)),
    merkleRoot: (depth, leaves) => merkleRoot(PORTABLE_HASHERS, depth, leaves),
  };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Picks the backend for `backend` (the value of VERIFIER_BHP_BACKEND). Exported for tests. */
export function selectBhpBackend(backend: string | undefined, o: SelectBhpOptions = {}): BhpBackend {
  if (backend === 'portable') return portable(`${BHP_BACKEND_ENV}=portable`);
  try {
    const n = o.addonPath === undefined ? createBhpNative() : createBhpNative(o.addonPath);
    return { name: 'native', reason: backend === 'native' ? `${BHP_BACKEND_ENV}=native` : 'native addon loaded', ...n };
  } catch (e) {
    return portable(`${backend === 'native' ? `${BHP_BACKEND_ENV}=native; ` : ''}native addon unavailable: ${message(e)}`);
  }
}

const selected = selectBhpBackend(process.env[BHP_BACKEND_ENV]);

/** The backend of this thread. */
export const bhpBackend: BhpBackend = selected;
export const bhpBackendName: BhpBackendName = selected.name;
export const bhpBackendReason: string = selected.reason;
