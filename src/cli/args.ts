/**
 * Command-line options. Each command declares its options once, in a table (CommandSpec.options);
 * both the parsing (parseOptions) and the --help text (usage) are generated from it.
 *
 * Parsing: node:util's parseArgs splits the arguments (`--name value`, `--name=value`, `-h`; `--`
 * ends the options), then the table is applied with the CLI's usage errors (CLI_USAGE): an unknown
 * option, a value missing or given twice, a value on a flag, a list without values. An option's
 * value is the next argument, whatever it is (`--out --x`); a list option takes several values,
 * repeated (`--fmspc a --fmspc b`) and/or space separated up to the next option (`--fmspc a b`).
 * Every command also takes `-h`/`--help`. Numbers and times are converted and range-checked when
 * the command reads them, so that its own checks keep their order.
 */
import { parseArgs } from 'node:util';
import { cliError } from './errors.js';

interface Common {
  /** What the option does, for --help (range and default are added from the table). */
  readonly help: string;
  /** A one-letter alias. */
  readonly short?: string;
  /** The heading --help lists the option under (else "options"). */
  readonly group?: string;
}

export type OptionSpec =
  | (Common & { readonly kind: 'flag' })
  | (Common & { readonly kind: 'string'; readonly arg: string; readonly required?: boolean })
  /** Several values. */
  | (Common & { readonly kind: 'list'; readonly arg: string; readonly required?: boolean })
  /** An integer in [min, max]; a numeric default is used when the option is absent, a text one is only shown. */
  | (Common & { readonly kind: 'int'; readonly arg: string; readonly min: number; readonly max: number; readonly default?: number | string })
  /** A number greater than `above`. */
  | (Common & { readonly kind: 'number'; readonly arg: string; readonly above: number; readonly default: number })
  /** An ISO-8601 date-time with an explicit zone (Z or ±hh:mm), read as epoch ms. */
  | (Common & { readonly kind: 'time'; readonly arg: string });

export type OptionTable = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec<T extends OptionTable = OptionTable> {
  /** As typed after `oracle-verifier` (`verify`, `collateral fetch`). */
  readonly command: string;
  readonly options: T;
  /** What follows the command in the usage line; default: every option, the required ones bare. */
  readonly synopsis?: string;
  /** The positional arguments: name as in the synopsis, description. */
  readonly arguments?: readonly (readonly [string, string])[];
  /** Lines after the options (exit codes, …). */
  readonly notes?: readonly string[];
}

/** The option names of one kind. */
type Named<T extends OptionTable, K extends OptionSpec['kind']> = { [N in keyof T & string]: T[N]['kind'] extends K ? N : never }[keyof T & string];

export interface ParsedOptions<T extends OptionTable> {
  readonly positionals: readonly string[];
  /** `-h` or `--help` was given. */
  readonly help: boolean;
  flag(name: Named<T, 'flag'>): boolean;
  string(name: Named<T, 'string'>): string | undefined;
  list(name: Named<T, 'list'>): readonly string[] | undefined;
  /** The value, else `fallback`, else the table's numeric default. */
  int(name: Named<T, 'int'>, fallback?: number): number | undefined;
  number(name: Named<T, 'number'>): number;
  time(name: Named<T, 'time'>): number | undefined;
  /** Some option the table marks as required is absent or empty. */
  missingRequired(): boolean;
}

const HELP = 'help';

export function parseOptions<T extends OptionTable>(argv: readonly string[], spec: CommandSpec<T>): ParsedOptions<T> {
  const table: OptionTable = spec.options;
  const specOf = (name: string): OptionSpec | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);
  // Lists are booleans to parseArgs: their values are the positionals that follow (below).
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = { [HELP]: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(table)) {
    config[name] = { type: o.kind === 'flag' || o.kind === 'list' ? 'boolean' : 'string', ...(o.short !== undefined ? { short: o.short } : {}) };
  }
  const { tokens } = parseArgs({ args: [...argv], options: config, strict: false, allowPositionals: true, tokens: true });

  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  /** The list option whose values the following positionals are. */
  let open: string | undefined;
  const close = (): void => {
    if (open !== undefined && lists.get(open)!.length === 0) throw cliError('CLI_USAGE', `option --${open} needs at least one value`);
    open = undefined;
  };
  for (const t of tokens) {
    if (t.kind === 'positional') {
      if (open !== undefined) lists.get(open)!.push(t.value);
      else positionals.push(t.value);
      continue;
    }
    close();
    if (t.kind === 'option-terminator') continue;
    const o = t.name === HELP ? ({ kind: 'flag' } as const) : specOf(t.name);
    if (o === undefined) throw cliError('CLI_USAGE', `unknown option ${t.rawName}`);
    if (o.kind === 'flag') {
      if (t.value !== undefined) throw cliError('CLI_USAGE', `option --${t.name} takes no value`);
      flags.add(t.name);
    } else if (o.kind === 'list') {
      const cur = lists.get(t.name) ?? [];
      lists.set(t.name, cur);
      if (t.value !== undefined) cur.push(t.value);
      else open = t.name;
    } else {
      if (t.value === undefined) throw cliError('CLI_USAGE', `option --${t.name} needs a value`);
      if (values.has(t.name)) throw cliError('CLI_USAGE', `option --${t.name} is given twice`);
      values.set(t.name, t.value);
    }
  }
  close();

  /** The option's spec, checked against the kind the command reads it as. */
  const specAs = <K extends OptionSpec['kind']>(name: string, kind: K): Extract<OptionSpec, { kind: K }> => {
    const o = specOf(name);
    if (o?.kind !== kind) throw new Error(`${spec.command}: --${name} is not a ${kind} option`);
    return o as Extract<OptionSpec, { kind: K }>;
  };
  const bad = (name: string, v: string, expected: string) => cliError('CLI_USAGE', `--${name} ${JSON.stringify(v)}: expected ${expected}`);

  return {
    positionals,
    help: flags.has(HELP),
    flag(name) {
      specAs(name, 'flag');
      return flags.has(name);
    },
    string(name) {
      specAs(name, 'string');
      return values.get(name);
    },
    list(name) {
      specAs(name, 'list');
      return lists.get(name);
    },
    int(name, fallback) {
      const o = specAs(name, 'int');
      const v = values.get(name);
      if (v === undefined) return fallback ?? (typeof o.default === 'number' ? o.default : undefined);
      if (!/^\d+$/.test(v) || Number(v) < o.min || Number(v) > o.max) throw bad(name, v, `an integer from ${o.min} to ${o.max}`);
      return Number(v);
    },
    number(name) {
      const o = specAs(name, 'number');
      const v = values.get(name);
      if (v === undefined) return o.default;
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n) || n <= o.above) throw bad(name, v, `a number > ${o.above}`);
      return n;
    },
    time(name) {
      specAs(name, 'time');
      const v = values.get(name);
      if (v === undefined) return undefined;
      const t = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) ? Date.parse(v) : NaN;
      if (!Number.isFinite(t)) throw bad(name, v, 'an ISO-8601 date-time such as 2026-09-23T00:00:00Z');
      return t;
    },
    missingRequired: () =>
      Object.entries(table).some(([name, o]) => (o.kind === 'string' ? o.required === true && !values.get(name) : o.kind === 'list' && o.required === true && !lists.get(name)?.length)),
  };
}

const WIDTH = 100;

/** `units` (words, or groups kept on one line) in lines of at most WIDTH columns where they fit: the first line after `prefix`, the others after `indent`. */
function wrap(units: readonly string[], prefix: string, indent: string): string[] {
  const lines: string[] = [];
  let line = prefix;
  units.forEach((u, i) => {
    if (i === 0) line += u;
    else if (line.length + 1 + u.length > WIDTH) {
      lines.push(line);
      line = indent + u;
    } else line += ` ${u}`;
  });
  lines.push(line);
  return lines;
}

function label(name: string, o: OptionSpec): string {
  const flag = `${o.short !== undefined ? `-${o.short}, ` : ''}--${name}`;
  if (o.kind === 'flag') return flag;
  return o.kind === 'list' ? `${flag} ${o.arg} [${o.arg}…]` : `${flag} ${o.arg}`;
}

const isRequired = (o: OptionSpec): boolean => (o.kind === 'string' || o.kind === 'list') && o.required === true;

/** The description's words, then what the table adds (required, range, default) as one unit. */
function describe(o: OptionSpec): string[] {
  const notes: string[] = [];
  if (isRequired(o)) notes.push('required');
  if (o.kind === 'int') notes.push(o.max === Number.MAX_SAFE_INTEGER ? `≥ ${o.min}` : `${o.min} to ${o.max}`);
  if (o.kind === 'number') notes.push(`> ${o.above}`);
  if ((o.kind === 'int' || o.kind === 'number') && o.default !== undefined) notes.push(`default: ${o.default}`);
  return [...o.help.split(' '), ...(notes.length === 0 ? [] : [`(${notes.join('; ')})`])];
}

/**
 * The --help text of a command (no final newline): the usage line (the synopsis, else every
 * option, the required ones bare), the arguments and the options under their group headings, one
 * per line with its description, required-ness, range and default, then the notes.
 */
export function usage(spec: CommandSpec): string {
  const entries = Object.entries(spec.options);
  const synopsis = spec.synopsis?.split(' ') ?? entries.map(([name, o]) => (isRequired(o) ? label(name, o) : `[${label(name, o)}]`));
  const lines = wrap(synopsis, `usage: oracle-verifier ${spec.command} `, ' '.repeat('usage: '.length));
  const rows = [
    ...(spec.arguments ?? []).map(([name, text]) => ({ group: 'arguments', left: name, words: text.split(' ') })),
    ...entries.map(([name, o]) => ({ group: o.group ?? 'options', left: label(name, o), words: describe(o) })),
  ];
  const column = Math.max(...rows.map((r) => r.left.length)) + 4;
  for (const group of new Set(rows.map((r) => r.group))) {
    lines.push(`${group}:`);
    for (const r of rows) if (r.group === group) lines.push(...wrap(r.words, `  ${r.left}`.padEnd(column), ' '.repeat(column)));
  }
  for (const note of spec.notes ?? []) lines.push(...wrap(note.split(' '), '', ''));
  return lines.join('\n');
}
