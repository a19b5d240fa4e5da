// After `tsc -b`: makes the package's commands (package.json "bin") executable. tsc writes its
// output without the execute bit, and npm sets the bit only when it first links a command: a
// dist/ rebuilt after that (a clean build, a fresh checkout at the same path) left `npx
// oracle-verifier` failing with "Permission denied". Commands not built yet are skipped.
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { bin = {} } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
for (const file of Object.values(typeof bin === 'string' ? { main: bin } : bin)) {
  const path = resolve(root, file);
  if (!existsSync(path)) continue;
  const { mode } = statSync(path);
  // Execute for whoever may read it.
  const wanted = mode | ((mode & 0o444) >> 2);
  if (wanted !== mode) chmodSync(path, wanted & 0o7777);
}
