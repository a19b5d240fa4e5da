#!/usr/bin/env node
// Builds the native Poseidon8 kernels (native/, binding.gyp) with node-gyp; run by `npm install`.
// No compiler flag is needed: the ADX kernel's instructions are inline assembly, chosen at run
// time from CPUID (native/poseidon8-adx.c).
// Never fails the install: on any error it logs one line and exits 0, and the verifier uses the
// WebAssembly kernel (src/hash/kernel.ts). Set VERIFIER_SKIP_NATIVE_BUILD=1 to skip the build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** node-gyp: the one npm runs scripts with, else npm's bundled copy, else the PATH. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  for (const c of candidates) if (c && existsSync(c)) return [process.execPath, c];
  return ['node-gyp'];
}

/** Node's headers: npm's `nodedir` config, else the ones installed beside this node (no download). */
function nodeDirArgs() {
  const configured = process.env.npm_config_nodedir;
  if (configured) return [`--nodedir=${configured}`];
  const local = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(local, 'include', 'node', 'node_api.h')) ? [`--nodedir=${local}`] : [];
}

if (process.env.VERIFIER_SKIP_NATIVE_BUILD === '1') {
  console.log('native Poseidon8 kernel: build skipped (VERIFIER_SKIP_NATIVE_BUILD=1); the WASM kernel will be used');
  process.exit(0);
}
const [cmd, ...pre] = nodeGyp();
const build = (env) => spawnSync(cmd, [...pre, 'rebuild', ...nodeDirArgs()], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
let r = build(process.env);
let note = '';
if (r.status !== 0 && process.platform !== 'win32') {
  // An assembler or compiler that cannot take the ADX kernel's MULX/ADCX/ADOX inline assembly:
  // the portable kernel alone (native/poseidon8.h, P8_NO_ADX; the Makefile reads CFLAGS).
  const again = build({ ...process.env, CFLAGS: `${process.env.CFLAGS ?? ''} -DP8_NO_ADX`.trim() });
  if (again.status === 0) {
    note = ' without the ADX kernel (the build with it failed; the portable kernel is used)';
    r = again;
  }
}
if (r.status === 0) {
  console.log(`native Poseidon8 kernel: built build/Release/poseidon8.node${note}`);
} else {
  // The compiler's or node-gyp's own error lines first (the last lines are node-gyp's boilerplate).
  const lines = `${r.stderr ?? ''}\n${r.stdout ?? ''}`.split('\n').filter((l) => l.trim() !== '');
  const errors = lines.filter((l) => /error/i.test(l) && !/^gyp ERR! (command|cwd|node -v|node-gyp -v|not ok|System)/.test(l));
  const why = r.error ? r.error.message : (errors.length > 0 ? errors : lines.slice(-5)).slice(0, 8).join('\n');
  console.log(`native Poseidon8 kernel: build failed, the WASM kernel will be used\n${why}`);
}
process.exit(0);
