/**
 * Process entry of the mainnet-shaped ledger node: `node --import tsx mainnet-node-main.ts SPEC.json`
 * serves the chain of SPEC (a MainnetNodeSpec) on 127.0.0.1 (a free port) and prints
 * `{"msg":"mainnet node listening","url":"http://127.0.0.1:PORT"}`; SIGTERM stops it.
 */
import { readFileSync } from 'node:fs';
import { startMainnetNode, type MainnetNodeSpec } from './mainnet-node.js';

const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as MainnetNodeSpec;
const node = await startMainnetNode(spec);
process.stdout.write(`${JSON.stringify({ msg: 'mainnet node listening', url: node.origin, fillerEvery: node.chain.fillerEvery })}\n`);
process.once('SIGTERM', () => void node.close().then(() => process.exit(0)));
