import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding this package's package.json (works from src/ under tsx and from dist/). */
export const PACKAGE_ROOT: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'trust'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('package root not found');
    dir = up;
  }
})();

