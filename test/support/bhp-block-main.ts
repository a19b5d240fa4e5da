/**
 * Child process of test/unit/hash/bhp/native.test.ts: recomputes the real mainnet block
 * (../shared/vectors/aleo/mainnet/block-1203288.json) on the BHP backend its environment selects
 * (VERIFIER_BHP_BACKEND) and prints one JSON line: the backend, each check line and the hash.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkBlock } from '../../src/aleo/block/check.js';
import { parseJsonLossless } from '../../src/aleo/block/losslessJson.js';
import { bhpBackendName, bhpBackendReason } from '../../src/hash/bhp/index.js';

const file = path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json');
const r = checkBlock(parseJsonLossless(readFileSync(file, 'utf8')));
console.log(
  JSON.stringify({
    backend: bhpBackendName,
    reason: bhpBackendReason,
    lines: r.lines.map((l) => [l.name, l.matches]),
    allMatch: r.allMatch,
    hash: r.computedHash.toString(),
  }),
);
