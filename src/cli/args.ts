/** A small, strict argument parser: `--name value`, `--name=value`, boolean flags, positionals. */
import { cliError } from './errors.js';

export interface ArgSpec {
  /** Options that take a value. */
  values: readonly string[];
  /** Options that take several values (repeatable and/or space separated until the next option). */
  lists?: readonly string[];
  /** Boolean flags. */
  flags?: readonly string[];
}

export interface ParsedArgs {
  values: Map<string, string>;
  lists: Map<string, string[]>;
  flags: Set<string>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], spec: ArgSpec): ParsedArgs {
  const out: ParsedArgs = { values: new Map(), lists: new Map(), flags: new Set(), positionals: [] };
  const lists = spec.lists ?? [];
  const flags = spec.flags ?? [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--') || a === '--') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const inline = eq >= 0 ? a.slice(eq + 1) : undefined;
    if (flags.includes(name)) {
      if (inline !== undefined) throw cliError('CLI_USAGE', `option --${name} takes no value`);
      out.flags.add(name);
    } else if (spec.values.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) throw cliError('CLI_USAGE', `option --${name} needs a value`);
      if (out.values.has(name)) throw cliError('CLI_USAGE', `option --${name} is given twice`);
      out.values.set(name, v);
    } else if (lists.includes(name)) {
      const cur = out.lists.get(name) ?? [];
      if (inline !== undefined) cur.push(inline);
      else {
        while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) cur.push(argv[++i]!);
      }
      if (cur.length === 0) throw cliError('CLI_USAGE', `option --${name} needs at least one value`);
      out.lists.set(name, cur);
    } else {
      throw cliError('CLI_USAGE', `unknown option --${name}`);
    }
  }
  return out;
}

export function intOption(a: ParsedArgs, name: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const v = a.values.get(name);
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw cliError('CLI_USAGE', `--${name} ${JSON.stringify(v)}: expected an integer from ${min} to ${max}`);
  return Number(v);
}

export function numberOption(a: ParsedArgs, name: string, dflt: number, minExclusive: number): number {
  const v = a.values.get(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= minExclusive) throw cliError('CLI_USAGE', `--${name} ${JSON.stringify(v)}: expected a number > ${minExclusive}`);
  return n;
}

/** ISO-8601 date-time with an explicit zone (Z or ±hh:mm), as epoch ms. */
export function timeOption(a: ParsedArgs, name: string): number | undefined {
  const v = a.values.get(name);
  if (v === undefined) return undefined;
  const t = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw cliError('CLI_USAGE', `--${name} ${JSON.stringify(v)}: expected an ISO-8601 date-time such as 2026-09-23T00:00:00Z`);
  return t;
}
