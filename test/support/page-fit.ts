/**
 * Whether a page fits its window, measured in the browser: the document is no wider than the
 * viewport (`scrollWidth ≤ innerWidth`), nothing seen of an element reaches past its right edge
 * (also not inside a box that scrolls or clips), and no word of prose (a run of letters standing
 * alone; not part of hex, ids, URLs or code, which may wrap anywhere) is broken across two lines,
 * as "Measur ement" or "mism atch" were. Checked at a phone width and a desktop width; the page is
 * left at the width it had.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export const WIDTHS = [390, 1280] as const;

export interface Fit {
  width: number;
  scrollWidth: number;
  /** Visible elements whose right edge is past the viewport's. */
  tooWide: string[];
  /** Words of prose broken across lines, with the element they are in. */
  brokenWords: string[];
}

/** Measures the page at its current width (runs in the browser). */
export function measure(page: Page): Promise<Fit> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width: number = (globalThis as any).innerWidth;
    const describe = (e: any) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.split(' ').join('.')}` : ''}`;
    const tooWide: string[] = [];
    // The right edge of what is seen of an element: ancestors that clip (overflow, clip-path) cut it.
    const seenRight = (e: any): number => {
      let right: number = e.getBoundingClientRect().right;
      for (let a = e.parentElement; a && a !== doc.body; a = a.parentElement) {
        const cs = (globalThis as any).getComputedStyle(a);
        if (cs.overflowX !== 'visible' || cs.clipPath !== 'none') right = Math.min(right, a.getBoundingClientRect().right);
      }
      return right;
    };
    for (const e of doc.body.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && seenRight(e) > width + 0.5) tooWide.push(`${describe(e)} (right edge ${Math.round(seenRight(e))} px)`);
    }
    const brokenWords: string[] = [];
    const walker = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      // Hex, ids, code and long tokens may wrap anywhere (.mono, .wrap, code); form controls are not text.
      if (!el || el.closest('[hidden], script, style, select, textarea, svg, code, .mono, .wrap')) continue;
      const text = n.data as string;
      for (const m of text.matchAll(/(?<![\p{L}\p{N}_])\p{L}{2,20}(?![\p{L}\p{N}_])/gu)) {
        // A word inside a long compound token (a URL, a path, dotted or underscored ids) is part of
        // that token, which may wrap anywhere; a word standing alone is prose.
        const start = text.slice(0, m.index!).search(/\S*$/);
        const end = m.index! + m[0].length + (/^\S*/.exec(text.slice(m.index! + m[0].length))?.[0].length ?? 0);
        const token = text.slice(start, end).replace(/^[(\[{"',;:]+|[)\]}"',;:.]+$/g, '');
        if (token !== m[0] && token.length >= 13) continue;
        const range = doc.createRange();
        range.setStart(n, m.index!);
        range.setEnd(n, m.index! + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r: any) => r.width > 0).map((r: any) => Math.round(r.top)));
        if (tops.size > 1) brokenWords.push(`"${m[0]}" in ${describe(el)}`);
      }
    }
    return { width, scrollWidth: doc.documentElement.scrollWidth, tooWide, brokenWords };
  });
}

/** Expects the page to fit at every width of WIDTHS in its current state; `state` names it in failures. */
export async function expectFits(page: Page, state: string): Promise<void> {
  const before = page.viewportSize();
  try {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      // One frame for the layout of the new width.
      await page.evaluate(() => new Promise((r) => (globalThis as any).requestAnimationFrame(() => r(undefined))));
      const fit = await measure(page);
      expect(fit.width, `${state} at ${width} px`).toBe(width);
      expect({ state, width, scrollWidth: fit.scrollWidth, tooWide: fit.tooWide, brokenWords: fit.brokenWords }).toEqual({ state, width, scrollWidth: expect.any(Number), tooWide: [], brokenWords: [] });
      expect(fit.scrollWidth, `${state} at ${width} px: document scrollWidth`).toBeLessThanOrEqual(width);
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
}
