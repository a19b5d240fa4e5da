/**
 * `oracle-verifier block check FILE`: recomputes a block's transactions root, header root and
 * block hash from its JSON (snarkOS `GET /{network}/block/{h}`, or a header with `block_hash` and
 * `previous_hash` beside it) and prints each as matching or not. Anyone can check a block by hand,
 * trusting no node: the hash it prints is the chain's commitment to everything the block holds.
 * Exit: 0 everything matches, 1 something does not, 2 the file is not a block.
 */
import { parseOptions, usage, type CommandSpec } from './args.js';
import { cliError, EXIT } from './errors.js';
import { fileProblem } from './inputFile.js';
import { jsonNestingDepth, readSmallFile } from '../smallFile.js';
import { BlockJsonError } from '../aleo/block/blockJson.js';
import { checkBlock } from '../aleo/block/check.js';
import { parseJsonLossless } from '../aleo/block/losslessJson.js';
import { confirmBlockHash, type Confirmation } from '../aleo/inclusion/confirm.js';
import { createLedgerNodeClient } from '../ledger/node/client.js';

/** A mainnet block is at most a few MB of JSON (its transactions bounded by the protocol). */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;
const MAX_DEPTH = 64;

export const BLOCK = {
  command: 'block',
  synopsis: 'check FILE [--confirm-with URL] [--json]',
  options: {
    'confirm-with': {
      kind: 'string',
      arg: 'URL',
      help: 'a second, independent REST API (with its network, e.g. https://api.explorer.provable.com/v1/mainnet): its block_hash at the same height must be the one computed',
    },
    json: { kind: 'flag', help: 'print the result as one JSON object' },
  },
  arguments: [
    ['check', 'the one subcommand'],
    ['FILE', 'a block as snarkOS serves it (GET /{network}/block/{h}), or an object with header, block_hash and previous_hash'],
  ],
  notes: ['exit: 0 every commitment matches (and the second API agrees), 1 one does not (or it names another hash), 2 the file is not a block or the second API did not answer'],
} as const satisfies CommandSpec;

export const BLOCK_USAGE = usage(BLOCK);

export async function blockCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const a = parseOptions(argv, BLOCK);
  if (a.help) {
    io.stderr(`${BLOCK_USAGE}\n`);
    return 0;
  }
  const [sub, file, ...extra] = a.positionals;
  if (sub !== 'check' || file === undefined || extra.length > 0) throw cliError('CLI_USAGE', BLOCK_USAGE);
  const read = readSmallFile(file, MAX_BLOCK_BYTES, 'a block');
  if (!read.ok) throw cliError('CLI_BAD_INPUT', `block check: ${read.errno === undefined ? `${file}: ${read.why}` : fileProblem(file, { code: read.errno })}`);
  const text = read.bytes.toString('utf8');
  if (jsonNestingDepth(text) > MAX_DEPTH) throw cliError('CLI_BAD_INPUT', `block check: ${file} nests deeper than ${MAX_DEPTH} (a block nests about 8 deep)`);
  let json: unknown;
  try {
    json = parseJsonLossless(text);
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `block check: ${file} is not JSON (${(e as Error).message})`);
  }
  let result;
  try {
    result = checkBlock(json);
  } catch (e) {
    if (e instanceof BlockJsonError) throw cliError('CLI_BAD_INPUT', `block check: ${file}: ${e.message}`);
    throw e;
  }
  const confirmWith = a.string('confirm-with');
  let confirmation: Confirmation | undefined;
  if (confirmWith !== undefined) {
    const client = createLedgerNodeClient({ baseUrl: confirmWith, timeoutMs: 30_000, retries: 2 });
    const served = await client.getJson(`/block/${result.height}`);
    confirmation = confirmBlockHash(result.computedHash, BigInt(result.height), served, client.baseUrl);
  }
  const ok = result.allMatch && (confirmation === undefined || confirmation.status === 'confirmed');
  if (a.flag('json')) {
    io.stdout(`${JSON.stringify({ height: result.height, lines: result.lines, allMatch: result.allMatch, ...(confirmation === undefined ? {} : { confirmation }) })}\n`);
  } else {
    io.stdout(`block ${result.height}\n`);
    for (const l of result.lines) {
      const mark = l.matches ? 'matches' : 'DOES NOT MATCH';
      io.stdout(l.name === 'header root' ? `  ${l.name.padEnd(18)} ${l.computed} (checked through the block hash)\n` : `  ${l.name.padEnd(18)} ${mark}: stated ${l.stated}, computed ${l.computed}\n`);
    }
    if (confirmation !== undefined) {
      io.stdout(confirmation.status === 'confirmed' ? `  confirmed by ${confirmation.by}: the same block hash at height ${result.height}\n` : `  NOT CONFIRMED: ${confirmation.code}: ${confirmation.detail}\n`);
    }
    io.stdout(!result.allMatch ? 'the block does not match what it states\n' : ok ? 'every commitment matches\n' : 'every commitment matches, but the second source does not confirm the block hash\n');
  }
  return ok ? EXIT.ALL_VALID : EXIT.SOME_INVALID;
}
