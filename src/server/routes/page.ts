/**
 * The pages (public/): GET / the verify page (index.html), GET /ledger the ledger page
 * (ledger.html), GET /page/… their scripts and styles. Plain files read once at start; no framework, no CDN, nothing external.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { PACKAGE_ROOT } from '../../packageRoot.js';

const ASSETS = [
  { url: '/', file: 'index.html', type: 'text/html; charset=utf-8', summary: 'The verify page (HTML)' },
  { url: '/ledger', file: 'ledger.html', type: 'text/html; charset=utf-8', summary: 'The ledger page (HTML)' },
  { url: '/page/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8', summary: 'The verify page script' },
  { url: '/page/ledger.js', file: 'ledger.js', type: 'text/javascript; charset=utf-8', summary: 'The ledger page script' },
  { url: '/page/common.js', file: 'common.js', type: 'text/javascript; charset=utf-8', summary: 'What both pages share' },
  { url: '/page/style.css', file: 'style.css', type: 'text/css; charset=utf-8', summary: 'The verify page styles' },
  // The README's first example (examples/readme-request.json), for the page's "Load example" button.
  { url: '/page/example.json', file: join(PACKAGE_ROOT, 'examples', 'readme-request.json'), type: 'application/json; charset=utf-8', summary: 'The example request of the verify page' },
] as const;

export const PAGE_PATHS: readonly string[] = ASSETS.map((a) => a.url);

export const pageRoutes = (dir = join(PACKAGE_ROOT, 'public')): FastifyPluginAsync => async (app) => {
  for (const a of ASSETS) {
    const body = readFileSync(isAbsolute(a.file) ? a.file : join(dir, a.file));
    // Not part of the API description (hide): HTML, script and styles for browsers.
    app.get(a.url, { schema: { summary: a.summary, hide: true } }, async (_req, reply) =>
      reply
        .type(a.type)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        .send(body),
    );
  }
};
