/**
 * README's alert list, generated from the rule files deploy/alerts/*.rules.yml: writes the block
 * between `<!-- alerts:begin -->` and `<!-- alerts:end -->` of README.md (one line per alert: name,
 * severity, how long it must hold, its summary with the template fields named). Run it after
 * changing a rule file:
 *
 *   npx tsx scripts/readme-alerts.ts           rewrites the block
 *   npx tsx scripts/readme-alerts.ts --check   exit 1 when the block is stale
 *
 * test/unit/repo/readme-alerts.test.ts fails while the block differs from what this writes.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const BEGIN = '<!-- alerts:begin -->';
export const END = '<!-- alerts:end -->';

interface Rule {
  alert: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string };
}

/** `{{ $labels.kind }}` → `{kind}`, `{{ $value … }}` → `{value}`. */
function untemplate(text: string): string {
  return text.replace(/\{\{\s*\$labels\.([a-zA-Z_]\w*)\s*\}\}/g, '{$1}').replace(/\{\{\s*\$value[^}]*\}\}/g, '{value}');
}

/** The markdown list of every alert of the rule files in `alertsDir`, file by file, in file order. */
export function alertsBlock(alertsDir: string): string {
  const files = readdirSync(alertsDir)
    .filter((f) => f.endsWith('.rules.yml'))
    .sort();
  const lines: string[] = [];
  for (const f of files) {
    const doc = parse(readFileSync(join(alertsDir, f), 'utf8')) as { groups: { rules: Rule[] }[] };
    for (const g of doc.groups) {
      for (const r of g.rules) {
        if (!r.alert) continue;
        const hold = r.for ? `, for ${r.for}` : '';
        lines.push(`- \`${r.alert}\` (${r.labels?.severity ?? 'no severity'}${hold}; \`deploy/alerts/${f}\`): ${untemplate(r.annotations?.summary ?? '').replace(/\.?$/, '.')}`);
      }
    }
  }
  return lines.join('\n');
}

/** `readme` with its marked block replaced by `block` (throws when the markers are missing). */
export function withAlertsBlock(readme: string, block: string): string {
  const b = readme.indexOf(BEGIN);
  const e = readme.indexOf(END);
  if (b < 0 || e < b) throw new Error(`README.md: no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, b + BEGIN.length)}\n${block}\n${readme.slice(e)}`;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const readmePath = join(root, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const next = withAlertsBlock(readme, alertsBlock(join(root, 'deploy/alerts')));
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      console.error('README.md: the alert list is stale; run npx tsx scripts/readme-alerts.ts');
      process.exit(1);
    }
  } else if (next !== readme) {
    writeFileSync(readmePath, next);
    console.log('README.md: alert list rewritten');
  }
}
