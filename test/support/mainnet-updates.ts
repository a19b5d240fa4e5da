/**
 * The oracle updates the mainnet-shaped node places (test/support/mainnet-node.ts): every era's
 * real userData (../shared/vectors: test/support/era-vectors.ts) bound by a quote of the minted
 * typeA PKI, a minted typeA update of today's encoding, a minted typeB (Nitro) update, and the
 * real era-4 10-chunk userData — each on a program of the registry that takes it.
 */
import { hashReportData } from '../../src/hash/index.js';
import { parseUserData } from '../../src/encoding/eras/index.js';
import { realResponses } from './era-vectors.js';
import { IFACE5, MRENCLAVE, mintedUpdates, OFFICIAL, VERU2, VLINK } from './ledger-fixture.js';
import { openEnclaveReport, reportText } from './ledger-reports.js';
import type { MintedCliEnv } from './minted-cli.js';
import type { MainnetUpdate } from './mainnet-node.js';

export function mainnetUpdates(env: MintedCliEnv): MainnetUpdate[] {
  const { sgx, nitro, era4 } = mintedUpdates(env);
  const bound = (userData: string) => {
    const bytes = parseUserData(userData);
    const rd = new Uint8Array(64);
    rd.set(hashReportData(bytes));
    return { bytes, report: reportText(openEnclaveReport(env.typeA.quote({ reportData: rd, mrEnclave: MRENCLAVE }))) };
  };
  const real = realResponses().map((r, i): MainnetUpdate => {
    const { bytes, report } = bound(r.userData);
    return bytes.length > 8 * 512
      ? { program: IFACE5, fn: 'set_single_data_sgx', userData: r.userData, report }
      : { program: i % 2 === 0 ? VERU2 : OFFICIAL, fn: 'set_data_sgx', userData: r.userData, report };
  });
  const s = sgx('59408.01000000');
  const n = nitro('3005.12000000');
  return [{ program: OFFICIAL, fn: 'set_data_sgx', ...s }, { program: VLINK, fn: 'set_data_nitro', ...n }, { program: IFACE5, fn: 'set_multiple_data_sgx', ...era4 }, ...real];
}
