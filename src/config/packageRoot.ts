import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPORT_KINDS, type ReportType } from '../verify/kinds/index.js';

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

/** The bundled trust anchor of every report kind (its `bundledRoot`). */
export const DEFAULT_TRUST_ROOTS = Object.fromEntries(REPORT_KINDS.map((k) => [k.id, join(PACKAGE_ROOT, 'trust', k.bundledRoot.file)])) as Readonly<Record<ReportType, string>>;
