/** `oracle-verifier collateral fetch --pccs URL --fmspc HEX… --out DIR` (layout: collateralDir.ts). */
import { resolve } from 'node:path';
import { PccsClient } from '../collateral/pccsClient.js';
import { parseArgs } from './args.js';
import { fetchCollateralDir } from './collateralDir.js';
import { cliError } from './errors.js';

export const COLLATERAL_USAGE = `usage: oracle-verifier collateral fetch --pccs URL --fmspc HEX [HEX…] --out DIR [--api-key KEY]
Writes TCB info (per FMSPC), QE identity, PCK CRLs and the root CA CRL, exactly as served, for
offline verification with --collateral-dir DIR.`;

export async function collateralCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'fetch') throw cliError('CLI_USAGE', `collateral: expected the subcommand "fetch"\n${COLLATERAL_USAGE}`);
  const a = parseArgs(rest, { values: ['pccs', 'out', 'api-key'], lists: ['fmspc'], flags: ['help'] });
  if (a.flags.has('help')) {
    io.stderr(`${COLLATERAL_USAGE}\n`);
    return 0;
  }
  const pccs = a.values.get('pccs');
  const out = a.values.get('out');
  const fmspcs = (a.lists.get('fmspc') ?? []).flatMap((f) => f.split(',')).filter((f) => f !== '');
  if (!pccs || !out || fmspcs.length === 0 || a.positionals.length) throw cliError('CLI_USAGE', `collateral fetch: --pccs, --fmspc and --out are required\n${COLLATERAL_USAGE}`);
  const client = new PccsClient({ baseUrl: pccs, ...(a.values.has('api-key') ? { apiKey: a.values.get('api-key')! } : {}) });
  const m = await fetchCollateralDir(client, pccs, fmspcs, resolve(out), (l) => io.stderr(`${l}\n`));
  io.stdout(`${JSON.stringify(m)}\n`);
  return 0;
}
