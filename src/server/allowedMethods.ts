/**
 * Which methods each path of the app answers, learnt from the routes as they are registered (an
 * onRoute hook), so that a request with another method on a known path is answered 405 with
 * `Allow`, for every route, parametric ones (`/ledger/transactions/:id`) included — not only for
 * the paths a hand-kept table names (issue 32 item 7).
 */
import type { RouteOptions } from 'fastify';

interface Pattern {
  url: string;
  match: RegExp;
  methods: Set<string>;
}

/** A route URL as a regular expression over request paths: `:name` one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

export class AllowedMethods {
  private readonly patterns = new Map<string, Pattern>();

  /** The onRoute hook. */
  readonly onRoute = (route: RouteOptions): void => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let p = this.patterns.get(route.url);
    if (!p) {
      p = { url: route.url, match: patternOf(route.url), methods: new Set() };
      this.patterns.set(route.url, p);
    }
    for (const m of methods) p.methods.add(m.toUpperCase());
    // Fastify answers HEAD on every GET route.
    if (p.methods.has('GET')) p.methods.add('HEAD');
  };

  /** The methods of `path` as an Allow header value (`GET, HEAD`), or undefined for a path no route has. */
  allow(path: string): string | undefined {
    const methods = new Set<string>();
    for (const p of this.patterns.values()) if (p.match.test(path)) for (const m of p.methods) methods.add(m);
    if (methods.size === 0) return undefined;
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return [...methods].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99)).join(', ');
  }
}
