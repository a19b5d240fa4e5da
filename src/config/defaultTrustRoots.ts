import { join } from 'node:path';
import { PACKAGE_ROOT } from '../packageRoot.js';
import { REPORT_KINDS, type ReportType } from '../verify/kinds/index.js';

/** The bundled trust anchor of every report kind (its `bundledRoot`). */
export const DEFAULT_TRUST_ROOTS = Object.fromEntries(REPORT_KINDS.map((k) => [k.id, join(PACKAGE_ROOT, 'trust', k.bundledRoot.file)])) as Readonly<Record<ReportType, string>>;
