/**
 * Links hold: every relative link and anchor in README.md, CONTRIBUTING.md and docs/*.md points at
 * a file of the repository and, with `#anchor`, at a heading of that file (GitHub's anchors:
 * lower case, punctuation dropped, spaces to hyphens, repeated headings numbered -1, -2…).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const FILES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Text outside fenced code blocks and inline code spans (links there are not links). */
export function prose(md: string): string {
  return md.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading text. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '')
    .replace(/[*_~]/g, (c) => (c === '_' ? '_' : ''));
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers. */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const noFences = md.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '');
  for (const m of noFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = githubSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of md.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** Relative links `[text](target)` and `![alt](target)` of a file's prose. */
function linksOf(md: string): string[] {
  return [...prose(md).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('links in README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(FILES).toContain('docs/configuration.md');
    expect(linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(5);
  });

  it('GitHub anchors as GitHub makes them', () => {
    expect(githubSlug('Configuration (`config.json`)')).toBe('configuration-configjson');
    expect(githubSlug('userData eras, `decodedData` and `decodedRequests`')).toBe('userdata-eras-decodeddata-and-decodedrequests');
    expect(githubSlug('GET /ledger/transactions/{id}')).toBe('get-ledgertransactionsid');
    expect([...anchorsOf('# A\n## A\n')]).toEqual(['a', 'a-1']);
  });

  for (const file of FILES) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const md = readFileSync(join(ROOT, file), 'utf8');
      const dead: string[] = [];
      for (const link of linksOf(md)) {
        const [pathPart, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = pathPart === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(pathPart));
        if (relative(ROOT, target).startsWith('..') || !existsSync(target)) {
          dead.push(`${link} (no file ${relative(ROOT, target)})`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(target).isDirectory() || !target.endsWith('.md')) {
          dead.push(`${link} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) dead.push(`${link} (no heading with anchor #${anchor} in ${relative(ROOT, target)})`);
      }
      expect(dead, `${file}: dead links`).toEqual([]);
    });
  }
});
