/**
 * Assembles src/ledger/node/blocks/jsonSkip.wat into src/generated/jsonSkip.wasm.b64.ts (wabt, a
 * development dependency: the service loads the committed bytes and needs no assembler):
 *   npx tsx scripts/gen-json-skip-wasm.ts
 * test/unit/ledger/node/blocks/jsonSkip.test.ts checks the committed module equals a fresh assembly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import createWabt from 'wabt';
import { renderWasmBase64Source } from './wasm-base64-source.js';

export const WAT = resolve(import.meta.dirname, '../src/ledger/node/blocks/jsonSkip.wat');
export const OUT = resolve(import.meta.dirname, '../src/generated/jsonSkip.wasm.b64.ts');

/** The module's bytes, assembled from the WAT source (no names section: the bytes depend on the code only). */
export async function assembleJsonSkip(): Promise<Uint8Array> {
  const wabt = await createWabt();
  const mod = wabt.parseWat('jsonSkip.wat', readFileSync(WAT, 'utf8'), { simd: true });
  try {
    mod.validate();
    return mod.toBinary({ log: false, write_debug_names: false }).buffer;
  } finally {
    mod.destroy();
  }
}

/** Source text of the generated file. */
export const renderJsonSkipSource = (bytes: Uint8Array): string =>
  renderWasmBase64Source(bytes, 'scripts/gen-json-skip-wasm.ts from src/ledger/node/blocks/jsonSkip.wat', 'JSON_SKIP_WASM_BASE64');

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const src = renderJsonSkipSource(await assembleJsonSkip());
  writeFileSync(OUT, src);
  console.log(`wrote ${OUT} (${src.length} chars)`);
}
