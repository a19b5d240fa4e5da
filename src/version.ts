/** The verifier's name and version (package.json), as each reproducible verdict names it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './packageRoot.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** `name/version`, e.g. "oracle-verifier/0.1.0". */
export const VERIFIER_VERSION = `${pkg.name}/${pkg.version}`;
