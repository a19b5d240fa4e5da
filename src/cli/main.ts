#!/usr/bin/env node
/**
 * oracle-verifier: command-line front end of the verifier (same core, config and worker pool as
 * the server).
 *   verify      one userData/report pair (the POST /decodeReport result)
 *   reverify    bulk re-verification from ledger blocks, JSONL or saved transactions
 *   collateral  fetch typeA collateral into a directory for offline audits
 *   merge       merge reverify outputs (shards)
 *   completeness  every key of the oracle data mappings on chain explained by a scanned write
 *   block       check a block's commitments (transactions root, header root, block hash) from its JSON
 * Exit codes: 0 all valid, 1 some invalid, 2 could not complete.
 */
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { isVerifierError } from '../errors.js';
import { collateralCommand, COLLATERAL_USAGE } from './collateral.js';
import { EXIT } from './errors.js';
import { mergeCommand, MERGE_USAGE } from './merge.js';
import { completenessCommand, COMPLETENESS_USAGE } from './completeness.js';
import { blockCommand, BLOCK_USAGE } from './block.js';
import { reverifyCommand, REVERIFY_USAGE } from './reverify.js';
import { verifyCommand, VERIFY_USAGE } from './verify.js';

export const USAGE = `oracle-verifier <command> [options]   (--help after a command for its options)

${VERIFY_USAGE}

${REVERIFY_USAGE}

${COLLATERAL_USAGE}

${MERGE_USAGE}

${COMPLETENESS_USAGE}

${BLOCK_USAGE}
`;

const COMMAND_USAGE: Record<string, string> = {
  verify: VERIFY_USAGE,
  reverify: REVERIFY_USAGE,
  collateral: COLLATERAL_USAGE,
  merge: MERGE_USAGE,
  completeness: COMPLETENESS_USAGE,
  block: BLOCK_USAGE,
};

const isHelpFlag = (a: string) => a === '--help' || a === '-h';

/**
 * Usage asked for (`--help`, `-h`, `help [COMMAND]`, `COMMAND … --help`): the text for stdout, else
 * undefined. An unknown command name after `help` is a usage error, not help.
 */
export function helpText(argv: readonly string[]): string | undefined {
  const [cmd, ...rest] = argv;
  if (cmd === undefined) return undefined;
  if (cmd === 'help' || isHelpFlag(cmd)) {
    const topic = rest[0];
    if (topic === undefined) return USAGE;
    return COMMAND_USAGE[topic] === undefined ? undefined : `${COMMAND_USAGE[topic]}\n`;
  }
  const usage = COMMAND_USAGE[cmd];
  return usage !== undefined && rest.some(isHelpFlag) ? `${usage}\n` : undefined;
}

/** Exit 0 with usage on stdout when asked for; usage errors go to stderr with exit 2. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const stdout = (s: string) => void process.stdout.write(s);
  const stderr = (s: string) => void process.stderr.write(s);
  const [cmd, ...rest] = argv;
  const help = helpText(argv);
  if (help !== undefined) {
    stdout(help);
    return 0;
  }
  try {
    switch (cmd) {
      case 'verify':
        return await verifyCommand(rest, { stdout, stderr });
      case 'reverify': {
        let stopping = false;
        const onSigint = () => {
          if (stopping) process.exit(EXIT.INCOMPLETE);
          stopping = true;
          stderr('\ninterrupt: finishing the batches in progress (interrupt again to quit at once)\n');
        };
        process.on('SIGINT', onSigint);
        process.on('SIGTERM', onSigint);
        try {
          return await reverifyCommand(rest, { stderr, tty: process.stderr.isTTY === true, stopRequested: () => stopping });
        } finally {
          process.off('SIGINT', onSigint);
          process.off('SIGTERM', onSigint);
        }
      }
      case 'collateral':
        return await collateralCommand(rest, { stdout, stderr });
      case 'merge':
        return await mergeCommand(rest, { stderr });
      case 'completeness':
        return await completenessCommand(rest, { stdout, stderr });
      case 'block':
        return await blockCommand(rest, { stdout, stderr });
      case undefined:
        stderr(`oracle-verifier: no command given\n\n${USAGE}`);
        return EXIT.INCOMPLETE;
      case 'help':
      case '--help':
      case '-h':
        stderr(`oracle-verifier: no help on ${JSON.stringify(rest[0])}: unknown command\n\n${USAGE}`);
        return EXIT.INCOMPLETE;
      default:
        stderr(`oracle-verifier: unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
        return EXIT.INCOMPLETE;
    }
  } catch (e) {
    const msg = isVerifierError(e) ? `${e.code}: ${e.message}` : (e as Error)?.stack ?? String(e);
    stderr(`oracle-verifier: ${msg}\n`);
    return EXIT.INCOMPLETE;
  }
}

function isEntry(): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(arg)).href;
  } catch {
    return false;
  }
}

if (isEntry()) {
  const code = await runCli(process.argv.slice(2));
  // Let stdout drain before exiting.
  process.stdout.write('', () => process.exit(code));
}
