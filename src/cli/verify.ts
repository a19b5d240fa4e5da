/**
 * `oracle-verifier verify --user-data FILE --report FILE`: one userData/report pair, the same
 * result as POST /decodeReport (`--json`), or a readable summary.
 */
import { parseOptions, usage, type CommandSpec } from './args.js';
import { createCliVerifier, decodeReportBody } from './context.js';
import { cliError, EXIT } from './errors.js';
import { readInputText } from './inputFile.js';
import { checkStructFiles } from './structFiles.js';
import { measurementsOf } from '../ledger/records/updateRecord.js';
import { outcomeFor } from '../errorCodes.js';
import { KINDS } from '../verify/kinds/index.js';
import type { VerifyOutcome } from '../verify/types.js';
import { TCB_UPDATE_POLICIES, type TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';

export const VERIFY = {
  command: 'verify',
  options: {
    'user-data': { kind: 'string', arg: 'FILE', required: true, help: 'the userData struct' },
    report: { kind: 'string', arg: 'FILE', required: true, help: 'the report struct' },
    nonce: { kind: 'string', arg: 'HEX|BASE64', help: "the request's nonce, checked against a Nitro document's as in POST /decodeReport" },
    at: { kind: 'time', arg: 'ISO-TIME', help: "typeA verification time (else the config's verificationTime, else now)" },
    config: { kind: 'string', arg: 'PATH', help: 'config file (else ./config.json, else the bundled one)' },
    workers: { kind: 'int', arg: 'N', min: 0, max: 256, default: 0, help: 'verification worker threads; 0: verify in this process' },
    'collateral-dir': { kind: 'string', arg: 'DIR', help: 'typeA collateral from this directory (collateral fetch), with --pccs only for what it lacks' },
    pccs: { kind: 'string', arg: 'URL', help: "PCCS for typeA collateral (else the config's pccsUrl)" },
    'as-of': { kind: 'time', arg: 'ISO-TIME', help: 'judge the report as it stood at this time (a ledger update: its block time): typeA under the TCB evaluation in force then, with the collateral of --archive; needs --archive' },
    archive: { kind: 'string', arg: 'DIR', help: 'the collateral archive (collateral import) that --as-of judges with; nothing else is asked' },
    'tcb-update': { kind: 'string', arg: 'early|standard', help: "with --as-of: Intel's TCB update policy that decides the evaluation in force (standard: 12 months after each TCB recovery, the PCS default; early: from its day); default standard" },
    json: { kind: 'flag', help: 'print the POST /decodeReport result as JSON (else a readable summary)' },
  },
  notes: [
    'FILE holds the ledger struct text (or a JSON string of it).',
    'exit: 0 valid, 1 invalid (a report that fails a check), 2 could not verify (outcome unverifiable: PCCS or collateral unavailable; bad arguments; a file that is not its struct, or the two files swapped)',
  ],
} as const satisfies CommandSpec;

export const VERIFY_USAGE = usage(VERIFY);

/** `label:` padded to the summary's value column. */
const field = (label: string): string => `${label}:`.padEnd(15);

function readStructFile(file: string, what: string): string {
  const text = readInputText(file, what);
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      /* not a JSON string: use the text as is */
    }
  }
  return text;
}

export function readableSummary(out: VerifyOutcome): string {
  const lines: string[] = [];
  lines.push(`report type:   ${out.reportType ?? '(not detected)'}`);
  const outcome = outcomeFor(out.reportValid, out.error?.code);
  lines.push(`report valid:  ${out.reportValid ? 'yes' : 'NO'}`);
  lines.push(`outcome:       ${outcome}${outcome === 'unverifiable' ? ' (could not verify: no verdict on the report; try again later)' : ''}`);
  if (out.error) lines.push(`failure:       ${out.error.code}: ${out.error.message}`);
  const v = out.decodedReport;
  if (v) {
    const m = measurementsOf(out);
    for (const k of KINDS) {
      const value = m[k.target.ledger.name];
      if (value !== undefined) (typeof value === 'string' ? [value] : value).forEach((x, i) => lines.push(`${field(k.target.ledger.labels[i]!)}${x}`));
    }
    if (typeof v.tcbStatusName === 'string') lines.push(`TCB status:    ${v.tcbStatusName}${Array.isArray(v.advisoryIds) && v.advisoryIds.length ? ` (${v.advisoryIds.join(', ')})` : ''}`);
    if (typeof v.timestamp === 'number') lines.push(`document time: ${new Date(v.timestamp).toISOString()}`);
  }
  const d = out.decodedData as Record<string, unknown> | undefined;
  if (d) {
    lines.push(`url:           ${String(d.url)}`);
    lines.push(`selector:      ${String(d.selector)}`);
    lines.push(`data:          ${String(d.attestationData)}`);
    if (typeof d.timestamp === 'number') lines.push(`attested at:   ${new Date(d.timestamp * 1000).toISOString()}`);
  }
  const requests = out.decodedRequests ?? [];
  if (requests.length > 1 || requests.some((q) => q.tokenId !== undefined)) {
    requests.forEach((q, i) => {
      const token = q.tokenId === undefined ? '' : ` (token ${q.tokenId})`;
      lines.push(`request ${i}:     ${q.url}${token}: ${q.attestationData}${q.requestHash === undefined ? '' : `, requestHash ${q.requestHash}`}`);
    });
  }
  return `${lines.join('\n')}\n`;
}

/** What a report judged as of a time was judged with (the summary's last lines, from the outcome's account). */
function historyLine(out: VerifyOutcome, policy: string): string {
  if (!out.asOf) return '';
  const w = out.asOf.with as { tcbEvaluation?: number; tcbUpdate?: string; collateral?: Record<string, string> } | undefined;
  if (!w || w.tcbEvaluation === undefined) return `judged as of:  ${out.asOf.time} (update=${policy})\n`;
  const keys = Object.entries(w.collateral ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
  return `judged as of:  ${out.asOf.time}, TCB evaluation ${w.tcbEvaluation} (update=${w.tcbUpdate})\ncollateral:    ${keys}\n${todayLine(out)}${evidenceLine(out)}`;
}

/** How the report stands today, beside its verdict at the time judged (JudgedAsOf.today). */
function todayLine(out: VerifyOutcome): string {
  const t = out.asOf?.today as { accepted: boolean; rejectedBy?: string; tcbEvaluation?: number; tcbStatus?: string; errorCode?: string; advisoryIds?: string[]; sinceEvaluation?: number; missingEvaluations?: number[] } | undefined;
  if (!t) return '';
  const rated = t.tcbStatus ?? `no TCB level matches (${t.errorCode})`;
  const advisories = t.advisoryIds?.length ? `; advisories ${t.advisoryIds.join(', ')}` : '';
  const missing = t.missingEvaluations?.length ? `; the archive lacks evaluation(s) ${t.missingEvaluations.join(', ')}` : '';
  return `today:         ${t.accepted ? 'accepted' : `not accepted (${t.rejectedBy})`}: ${rated} under TCB evaluation ${t.tcbEvaluation}, since evaluation ${t.sinceEvaluation}${advisories}${missing}\n`;
}

/** What the verdict was reached on (VerifyOutcome.evidence). */
function evidenceLine(out: VerifyOutcome): string {
  const e = out.evidence;
  return e ? `evidence:      report ${e.report}, userData ${e.userData}, policy ${e.policy}, ${e.verifier}\n` : '';
}

export async function verifyCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const a = parseOptions(argv, VERIFY);
  if (a.help) {
    io.stderr(`${VERIFY_USAGE}\n`);
    return 0;
  }
  if (a.missingRequired() || a.positionals.length) throw cliError('CLI_USAGE', `verify: --user-data FILE and --report FILE are required\n${VERIFY_USAGE}`);
  const userData = readStructFile(a.string('user-data')!, '--user-data');
  const report = readStructFile(a.string('report')!, '--report');
  checkStructFiles({ userData: { file: a.string('user-data')!, text: userData }, report: { file: a.string('report')!, text: report } });
  const asOf = a.time('as-of');
  const archive = a.string('archive');
  const policy = a.string('tcb-update') ?? 'standard';
  if ((asOf === undefined) !== (archive === undefined)) throw cliError('CLI_USAGE', 'verify: --as-of TIME and --archive DIR go together (an archive judges a report as it stood at a time)');
  if (!(TCB_UPDATE_POLICIES as readonly string[]).includes(policy)) throw cliError('CLI_USAGE', `verify: --tcb-update ${JSON.stringify(policy)}: expected early or standard`);
  if (asOf !== undefined && (a.time('at') !== undefined || a.string('collateral-dir') !== undefined || a.string('pccs') !== undefined || a.int('workers') !== 0)) {
    throw cliError('CLI_USAGE', 'verify: --as-of judges in this process with the archive alone: drop --at, --collateral-dir, --pccs and --workers');
  }
  const at = asOf ?? a.time('at');
  const config = a.string('config');
  const collateralDir = a.string('collateral-dir');
  const pccsUrl = a.string('pccs');
  const verifier = createCliVerifier({
    ...(config !== undefined ? { configPath: config } : {}),
    ...(at !== undefined ? { at } : {}),
    workers: a.int('workers')!,
    ...(collateralDir !== undefined ? { collateralDir } : {}),
    ...(pccsUrl !== undefined ? { pccsUrl } : {}),
    ...(archive !== undefined ? { archive: { dir: archive, policy: policy as TcbUpdatePolicy }, offline: true } : {}),
  });
  try {
    const out = await verifier.verify(userData, report, a.string('nonce'), asOf);
    const judged = historyLine(out, policy);
    io.stdout(a.flag('json') ? `${JSON.stringify(decodeReportBody(out), null, 2)}\n` : `${readableSummary(out)}${judged}`);
    const outcome = outcomeFor(out.reportValid, out.error?.code);
    return outcome === 'valid' ? EXIT.ALL_VALID : outcome === 'unverifiable' ? EXIT.INCOMPLETE : EXIT.SOME_INVALID;
  } finally {
    await verifier.close();
  }
}
