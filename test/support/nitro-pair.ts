/**
 * The real README Nitro pair (E2E.md): the /decodeReport request, its document's PCRs, the shipped
 * targets, a one-field tweak of a struct text, and two servers — one whose PCR targets are the
 * document's own (the pair is valid), one on the shipped targets (PCR mismatch).
 */
import { afterAll, beforeAll } from 'vitest';
import { readVectorJson } from './paths.js';
import { startServer, type RunningServer } from './server.js';

export const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
export const targets = readVectorJson<any>('production-targets.json');
export const oracleDoc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
export const docPcrs: string[] = [oracleDoc.pcr0, oracleDoc.pcr1, oracleDoc.pcr2];

/** Changes one u128 value of a struct text (field `fN` of chunk `cM`) to another valid value. */
export function tweak(text: string, chunk: number, field: number): string {
  const re = new RegExp(`(c${chunk}:\\s*\\{[^}]*?\\bf${field}:\\s*)(\\d+)u128`);
  const m = re.exec(text);
  if (!m) throw new Error('field not found');
  const v = BigInt(m[2]!);
  const nv = v === 0n ? 1n : v - 1n;
  return text.replace(re, `$1${nv}u128`);
}

export interface NitroServers {
  /** PCR targets = the document's own PCRs. */
  own: RunningServer;
  /** The shipped default targets. */
  shipped: RunningServer;
  close(): Promise<void>;
}

export async function startNitroServers(): Promise<NitroServers> {
  const own = await startServer({ uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: docPcrs });
  const shipped = await startServer({ uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget });
  return {
    own,
    shipped,
    async close() {
      await own.close();
      await shipped.close();
    },
  };
}

/** Starts the two servers before the enclosing suite's tests and closes them after; read them inside tests. */
export function useNitroServers(): { readonly own: RunningServer; readonly shipped: RunningServer } {
  let servers: NitroServers | undefined;
  beforeAll(async () => {
    servers = await startNitroServers();
  });
  afterAll(async () => {
    await servers?.close();
  });
  const get = (): NitroServers => {
    if (!servers) throw new Error('the Nitro servers are not started');
    return servers;
  };
  return {
    get own() {
      return get().own;
    },
    get shipped() {
      return get().shipped;
    },
  };
}
