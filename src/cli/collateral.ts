/**
 * `oracle-verifier collateral fetch|import|export`: an offline collateral directory from a PCCS
 * (layout: collateralDir.ts), and the collateral archive (src/collateral/archive.ts) that judges
 * reports as they stood at their own time: documents imported only when their Intel signatures
 * verify to the pinned root, and exported as a bundle another auditor imports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PccsClient } from '../collateral/pccsClient.js';
import { CollateralArchive } from '../collateral/archive.js';
import { bundleOf, documentsIn } from '../collateral/archiveFiles.js';
import { isVerifierError } from '../errors.js';
import { parseOptions, usage, type CommandSpec } from './args.js';
import { fetchCollateralDir } from './collateralDir.js';
import { loadCliConfig } from './context.js';
import { loadRoots } from '../compose.js';
import { REPORT_KINDS } from '../verify/kinds/index.js';
import { cliError, EXIT } from './errors.js';
import { fileProblem } from './inputFile.js';

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

export const COLLATERAL_IMPORT = {
  command: 'collateral import',
  synopsis: 'PATH... --archive DIR [--issuer-chain FILE] [--config PATH]',
  arguments: [['PATH', 'a collateral directory (collateral fetch), an archive, an export bundle, a dcap-qvl collateral JSON, or one PCS body (TCB info, QE identity, TCB evaluation data numbers)']],
  options: {
    archive: { kind: 'string', arg: 'DIR', required: true, help: 'the collateral archive to add to (created when absent)' },
    'issuer-chain': { kind: 'string', arg: 'FILE', help: "the PEM issuer chain of a lone PCS body (its issuer-chain header: Intel's TCB Signing certificate, then the root)" },
    config: { kind: 'string', arg: 'PATH', help: "config file whose typeA trust root the signatures must chain to (else ./config.json, else the bundled one: Intel's pinned root)" },
  },
  notes: ['Each document is verified first (its signature chain to the pinned root, at the time it was signed); one that does not verify is refused and nothing of it is written.', 'exit: 0 every document imported (or there already), 2 a document refused or a path unreadable'],
} as const satisfies CommandSpec;

export const COLLATERAL_EXPORT = {
  command: 'collateral export',
  options: {
    archive: { kind: 'string', arg: 'DIR', required: true, help: 'the collateral archive' },
    out: { kind: 'string', arg: 'FILE', required: true, help: 'the bundle to write (one document a line; collateral import reads it)' },
    config: { kind: 'string', arg: 'PATH', help: 'config file whose typeA trust root the archive is checked against' },
  },
  notes: ['The same documents export to the same bytes, on any machine.'],
} as const satisfies CommandSpec;

export const COLLATERAL_USAGE = [COLLATERAL_FETCH, COLLATERAL_IMPORT, COLLATERAL_EXPORT].map(usage).join('\n\n');

type Io = { stdout: (s: string) => void; stderr: (s: string) => void };

/**
 * The trust root of the kind with collateral (Intel's pinned root by default), at no particular
 * time: each document's chain checks it when that document was signed.
 */
function collateralRoot(configPath: string | undefined) {
  const kind = REPORT_KINDS.find((k) => k.collateral !== undefined)!;
  return loadRoots(loadCliConfig(configPath), null)[kind.id];
}

async function fetchCommand(rest: readonly string[], io: Io): Promise<number> {
  const a = parseOptions(rest, COLLATERAL_FETCH);
  if (a.help) {
    io.stderr(`${usage(COLLATERAL_FETCH)}\n`);
    return 0;
  }
  const fmspcs = (a.list('fmspc') ?? []).flatMap((f) => f.split(',')).filter((f) => f !== '');
  if (a.missingRequired() || fmspcs.length === 0 || a.positionals.length) throw cliError('CLI_USAGE', `collateral fetch: --pccs, --fmspc and --out are required\n${usage(COLLATERAL_FETCH)}`);
  const pccs = a.string('pccs')!;
  const apiKey = a.string('api-key');
  const client = new PccsClient({ baseUrl: pccs, ...(apiKey !== undefined ? { apiKey } : {}) });
  const m = await fetchCollateralDir(client, pccs, fmspcs, resolve(a.string('out')!), (l) => io.stderr(`${l}\n`));
  io.stdout(`${JSON.stringify(m)}\n`);
  return 0;
}

function importCommand(rest: readonly string[], io: Io): number {
  const a = parseOptions(rest, COLLATERAL_IMPORT);
  if (a.help) {
    io.stderr(`${usage(COLLATERAL_IMPORT)}\n`);
    return 0;
  }
  if (a.missingRequired() || a.positionals.length === 0) throw cliError('CLI_USAGE', `collateral import: PATH and --archive DIR are required\n${usage(COLLATERAL_IMPORT)}`);
  const root = collateralRoot(a.string('config'));
  const chainFile = a.string('issuer-chain');
  let issuerChain: string | undefined;
  try {
    issuerChain = chainFile === undefined ? undefined : readFileSync(chainFile, 'utf8');
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `--issuer-chain: ${fileProblem(chainFile!, e)}`);
  }
  const archive = CollateralArchive.open(resolve(a.string('archive')!), root, { create: true });
  let refused = 0;
  for (const path of a.positionals) {
    for (const doc of documentsIn(path, issuerChain === undefined ? {} : { issuerChain })) {
      try {
        const r = archive.add(doc);
        io.stdout(`${r.added ? 'imported' : 'already archived'} ${r.kind} ${r.key}\n`);
      } catch (e) {
        if (!isVerifierError(e)) throw e;
        refused++;
        io.stderr(`refused ${doc.kind} from ${path}: ${e.code}: ${e.message}\n`);
      }
    }
  }
  return refused === 0 ? 0 : EXIT.INCOMPLETE;
}

function exportCommand(rest: readonly string[], io: Io): number {
  const a = parseOptions(rest, COLLATERAL_EXPORT);
  if (a.help) {
    io.stderr(`${usage(COLLATERAL_EXPORT)}\n`);
    return 0;
  }
  if (a.missingRequired() || a.positionals.length) throw cliError('CLI_USAGE', `collateral export: --archive DIR and --out FILE are required\n${usage(COLLATERAL_EXPORT)}`);
  const archive = CollateralArchive.open(resolve(a.string('archive')!), collateralRoot(a.string('config')));
  writeFileSync(resolve(a.string('out')!), bundleOf(archive));
  io.stdout(`exported ${archive.all().length} documents\n`);
  return 0;
}

export async function collateralCommand(argv: readonly string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'fetch') return fetchCommand(rest, io);
  if (sub === 'import') return importCommand(rest, io);
  if (sub === 'export') return exportCommand(rest, io);
  throw cliError('CLI_USAGE', `collateral: expected the subcommand fetch, import or export\n${COLLATERAL_USAGE}`);
}
