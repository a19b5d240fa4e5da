/** Source text of the generated module file (shared by the build script and its freshness test). */
import { buildPoseidon8Wasm } from './poseidon8-module.js';
import { renderWasmBase64Source } from '../wasm-base64-source.js';

export function renderPoseidon8WasmModuleSource(): string {
  return renderWasmBase64Source(buildPoseidon8Wasm(), 'scripts/build-poseidon8-wasm.ts from scripts/poseidon8-wasm/poseidon8-module.ts', 'POSEIDON8_WASM_BASE64');
}
