/** `oracle-verifier collateral fetch --pccs URL --fmspc HEX… --out DIR` (layout: collateralDir.ts). */
import { resolve } from 'node:path';
import { PccsClient } from '../collateral/pccsClient.js';
import { parseOptions, usage, type CommandSpec } from './args.js';
import { fetchCollateralDir } from './collateralDir.js';
import { cliError } from './errors.js';

export const COLLATERAL_FETCH = {
  command: 'collateral fetch',
  options: {
    pccs: { kind: 'string', arg: 'URL', required: true, help: 'the PCCS to fetch from' },
    fmspc: { kind: 'list', arg: 'HEX', required: true, help: 'the platforms (FMSPCs) whose TCB info to fetch, repeatable or comma separated' },
    out: { kind: 'string', arg: 'DIR', required: true, help: 'the collateral directory to write' },
    'api-key': { kind: 'string', arg: 'KEY', help: "sent as Ocp-Apim-Subscription-Key (the header of Intel's PCS)" },
  },
  notes: ['Writes TCB info (per FMSPC), QE identity, PCK CRLs and the root CA CRL, exactly as served, for offline verification with --collateral-dir DIR.'],
} as const satisfies CommandSpec;

export const COLLATERAL_USAGE = usage(COLLATERAL_FETCH);

export async function collateralCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'fetch') throw cliError('CLI_USAGE', `collateral: expected the subcommand "fetch"\n${COLLATERAL_USAGE}`);
  const a = parseOptions(rest, COLLATERAL_FETCH);
  if (a.help) {
    io.stderr(`${COLLATERAL_USAGE}\n`);
    return 0;
  }
  const fmspcs = (a.list('fmspc') ?? []).flatMap((f) => f.split(',')).filter((f) => f !== '');
  if (a.missingRequired() || fmspcs.length === 0 || a.positionals.length) throw cliError('CLI_USAGE', `collateral fetch: --pccs, --fmspc and --out are required\n${COLLATERAL_USAGE}`);
  const pccs = a.string('pccs')!;
  const apiKey = a.string('api-key');
  const client = new PccsClient({ baseUrl: pccs, ...(apiKey !== undefined ? { apiKey } : {}) });
  const m = await fetchCollateralDir(client, pccs, fmspcs, resolve(a.string('out')!), (l) => io.stderr(`${l}\n`));
  io.stdout(`${JSON.stringify(m)}\n`);
  return 0;
}
