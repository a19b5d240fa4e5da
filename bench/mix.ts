/**
 * The minted request mix shared by the core-path and HTTP load benchmarks: one typeA test PKI
 * (an UpToDate platform), one typeB test PKI, and `count` distinct oracle updates, each with its
 * userData and both a typeA report (Open Enclave envelope + quote) and a typeB document binding it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTypeBPki, defaultPcrs, type TypeBPki } from '../test/support/typeb-pki.js';
import { mintTypeAPki, type TestPki } from '../test/support/typea-pki.js';
import { makeUserData, openEnclaveReport, type UserData } from '../test/support/ledger-reports.js';

export interface MintedUpdate {
  userData: UserData;
  /** typeA report bytes (unpadded). */
  typeA: Uint8Array;
  /** typeB document bytes (unpadded). */
  typeB: Uint8Array;
}

export interface MintedMix {
  a: TestPki;
  b: TypeBPki;
  mrEnclave: Uint8Array;
  updates: MintedUpdate[];
}

export function mintMix(count: number): MintedMix {
  const a = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
  const b = createTypeBPki();
  const mrEnclave = new Uint8Array(32).fill(0x5a);
  const updates: MintedUpdate[] = [];
  for (let i = 0; i < count; i++) {
    const userData = makeUserData({ attestationData: `${59000 + i}.01000000`, timestamp: 1725008028 + i });
    const rd = new Uint8Array(64);
    rd.set(userData.hash);
    updates.push({ userData, typeA: openEnclaveReport(a.quote({ reportData: rd, mrEnclave })), typeB: b.mintDocument({ userData: userData.hash }) });
  }
  return { a, b, mrEnclave, updates };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * The verifier's config settings for a mix (targets, the test PKIs' roots written into `dir`, the
 * typeA verification time, the PCCS serving the minted collateral): what every bench peer and the
 * tests of the peers verify the mix with. Port, host, workers and the rest are the caller's.
 */
export function mixConfig(mix: MintedMix, dir: string, pccsUrl: string): Record<string, unknown> {
  writeFileSync(join(dir, 'a.pem'), mix.a.root.pem);
  writeFileSync(join(dir, 'b.pem'), mix.b.rootPem);
  return {
    liveCheck: { skip: true },
    uniqueIdTarget: hex(mix.mrEnclave),
    pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
    acceptedTcbStatuses: ['UpToDate'],
    trustedRoots: { typeA: join(dir, 'a.pem'), typeB: join(dir, 'b.pem') },
    verificationTime: new Date(mix.a.time).toISOString(),
    pccsUrl,
  };
}
