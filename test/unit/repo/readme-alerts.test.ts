/**
 * README's alert list is generated from deploy/alerts/*.rules.yml by scripts/readme-alerts.ts: the
 * marked block equals what the script writes now (stale: run `npx tsx scripts/readme-alerts.ts`),
 * and names every alert of every rule file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { alertsBlock, BEGIN, END, withAlertsBlock } from '../../../scripts/readme-alerts.js';

const ALERTS = resolve(process.cwd(), 'deploy/alerts');
const readme = readFileSync(resolve(process.cwd(), 'README.md'), 'utf8');

describe("README's alert list", () => {
  it('is the block scripts/readme-alerts.ts writes from the rule files (run it when this fails)', () => {
    expect(readme.split(BEGIN)).toHaveLength(2);
    expect(readme.split(END)).toHaveLength(2);
    expect(withAlertsBlock(readme, alertsBlock(ALERTS)), 'README.md alert list is stale: npx tsx scripts/readme-alerts.ts').toBe(readme);
  });

  it('names every alert of every rule file, once', () => {
    const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
    const names = readdirSync(ALERTS)
      .filter((f) => f.endsWith('.rules.yml'))
      .flatMap((f) => parse(readFileSync(resolve(ALERTS, f), 'utf8')).groups.flatMap((g: any) => g.rules.map((r: any) => r.alert)));
    expect(names.length).toBeGreaterThanOrEqual(9);
    for (const n of names) expect(block.split(`\`${n}\``), n).toHaveLength(2);
  });

  it('a changed rule makes the block stale', () => {
    const edited = readme.replace('`LedgerWatcherStopped` (critical', '`LedgerWatcherStopped` (warning');
    expect(edited).not.toBe(readme);
    expect(withAlertsBlock(edited, alertsBlock(ALERTS))).toBe(readme);
  });
});
