/**
 * Regenerates src/generated/poseidon8.wasm.b64.ts from the generator in scripts/poseidon8-wasm/
 * (poseidon8-module.ts, on the binary writer emit.ts): `npx tsx scripts/build-poseidon8-wasm.ts`.
 * test/unit/hash/kernel.test.ts checks the committed module equals a fresh generation.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPoseidon8WasmModuleSource } from './poseidon8-wasm/render.js';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/generated/poseidon8.wasm.b64.ts');
const src = renderPoseidon8WasmModuleSource();
writeFileSync(out, src);
console.log(`wrote ${out} (${src.length} chars)`);
