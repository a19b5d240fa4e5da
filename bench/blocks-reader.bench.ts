/**
 * The `/blocks` readers (src/ledger/node/blocks/blocksBody.ts) alone, on one core, over mainnet-shaped
 * answers of the stand-in (test/support/mainnet-node.ts: 50 blocks of ≈ 350 KB): CPU ms per block
 * (process.cpuUsage, not wall time) of the structural reader and of the JSON.parse reference.
 *
 *   npx tsx bench/blocks-reader.bench.ts [--rounds R] [--reader structural|json|both]
 */
import { parseArgs } from 'node:util';
import { readBlocksJson, readBlocksStructural, type BlocksReader } from '../src/ledger/node/blocks/blocksBody.js';
import { MainnetChain, MAX_BLOCKS } from '../test/support/mainnet-node.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' }, reader: { type: 'string', default: 'structural' } } });
const chain = new MainnetChain({ latest: 100_000, rps: 1, updates: [] });
/** A few answers of 50 blocks, as the stand-in serves them. */
const bodies: Buffer[] = [];
for (let s = 0; s < 8 * MAX_BLOCKS; s += MAX_BLOCKS) {
  const parts: (string | Buffer)[] = ['[\n'];
  for (let h = s; h < s + MAX_BLOCKS; h++) {
    if (h > s) parts.push(',\n');
    parts.push(...chain.blockPieces(h));
  }
  parts.push('\n]');
  bodies.push(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
}
const readers: [string, BlocksReader][] = [];
if (values.reader !== 'json') readers.push(['structural', readBlocksStructural]);
if (values.reader !== 'structural') readers.push(['json', readBlocksJson]);
const rounds = Number(values.rounds);
for (const [name, read] of readers) {
  for (let w = 0; w < 3; w++) for (const [i, b] of bodies.entries()) read(b, i * MAX_BLOCKS);
  const c0 = process.cpuUsage();
  let blocks = 0;
  for (let r = 0; r < rounds; r++) for (const [i, b] of bodies.entries()) blocks += read(b, i * MAX_BLOCKS).length;
  const c = process.cpuUsage(c0);
  const kb = bodies.reduce((n, b) => n + b.length, 0) / (bodies.length * MAX_BLOCKS) / 1024;
  console.log(`${name}: ${(((c.user + c.system) / 1000) / blocks).toFixed(4)} ms CPU a block (${blocks} blocks of ${kb.toFixed(0)} KiB)`);
}
