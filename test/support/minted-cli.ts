/**
 * What a CLI run over minted updates needs: an UpToDate typeA test PKI whose collateral a
 * PCCS-compatible server serves, a typeB test PKI, both roots written to `dir`, and the config
 * (targets = `mrEnclave` and the default PCRs) trusting them, written to `dir`/config.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFromCollateral, startPccsServer, type PccsServer } from './pccs-server.js';
import { createTypeBPki, defaultPcrs } from './typeb-pki.js';
import { mintTypeAPki, type TestPki, type TestPkiOptions } from './typea-pki.js';

export interface MintedCliEnv {
  typeA: TestPki;
  typeB: ReturnType<typeof createTypeBPki>;
  pccs: PccsServer;
  /** Config object (write it with extra keys as needed). */
  config: Record<string, unknown>;
  /** `dir`/config.json holding `config`. */
  configFile: string;
  /** The typeA verification time (`--at`). */
  at: string;
}

/** `pki` overrides the typeA PKI (by default the PCK certificate matches the UpToDate level). */
export async function startMintedCliEnv(dir: string, mrEnclave: Uint8Array, pki: TestPkiOptions = {}): Promise<MintedCliEnv> {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const typeA = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' }, ...pki });
  const typeB = createTypeBPki();
  const pccs = await startPccsServer(bundleFromCollateral(typeA.collateral));
  writeFileSync(join(dir, 'a.pem'), typeA.root.pem);
  writeFileSync(join(dir, 'b.pem'), typeB.rootPem);
  const config = {
    uniqueIdTarget: hex(mrEnclave),
    pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
    acceptedTcbStatuses: ['UpToDate'],
    trustedRoots: { typeA: join(dir, 'a.pem'), typeB: join(dir, 'b.pem') },
    pccsUrl: pccs.url,
  };
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  return { typeA, typeB, pccs, config, configFile, at: new Date(typeA.time).toISOString() };
}
