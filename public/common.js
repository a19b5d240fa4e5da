// @ts-check
/**
 * What the verify page and the ledger page share: element helpers, the one fetch wrapper that
 * turns every failed request into a shown message, and the check list, decoded-data table and
 * measurements-against-targets table. All data is inserted as text, never as HTML.
 */

/** @typedef {{ id: string, title: string, status: 'passed' | 'failed' | 'skipped', code?: string }} Check */
/** @typedef {'valid' | 'invalid' | 'unverifiable' | 'unattested'} Outcome */
/** @typedef {{ url?: string, selector?: string, attestationData?: string, timestamp?: number, tokenId?: number, encodingOptions?: { value?: string, precision?: number } }} Decoded */
/**
 * @typedef {{ transactionId: string, transitionId: string, blockHeight: number, program: string, function: string, reportType: string,
 *   reportValid: boolean, outcome?: Outcome, errorCode?: string, errorString?: string, decodedData?: Decoded, decodedRequests?: Decoded[], tcbStatus?: string,
 *   measurements: { uniqueId?: string, pcrs?: string[] }, checks?: Check[], verifiedAt: string,
 *   unrecognized?: boolean, written?: { mapping: string, key: string, value: string }, blockTimestamp?: string, judgedAsOf?: JudgedAsOf,
 *   inclusion?: Inclusion }} LedgerRecord
 */
/**
 * @typedef {{ status: 'proven' | 'failed' | 'not_checked', blockHash?: string, confirmedBy?: string, link?: string, code?: string, detail?: string, why?: string }} Inclusion
 */
/**
 * @typedef {{ accepted: boolean, rejectedBy?: string, tcbEvaluation?: number, tcbStatus?: string, errorCode?: string, advisoryIds?: string[],
 *   sinceEvaluation?: number, changed?: boolean, missingEvaluations?: number[], pckRevokedSince?: string, pckCaRevokedSince?: string }} JudgedToday
 */
/** @typedef {{ time: string, with?: { tcbEvaluation?: number, tcbUpdate?: string }, today?: JudgedToday }} JudgedAsOf */
/** @typedef {{ source: string, uniqueId?: string, pcrs?: string[] }} AcceptedBuild */
/** @typedef {{ uniqueId?: string, pcrs?: string[], builds?: AcceptedBuild[] }} Targets */

/** The configured targets (GET /info), filled by loadTargets. @type {Targets} */
export const targets = {};

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page element #${id} missing`);
  return el;
}

/**
 * @param {string} tag
 * @param {string} [text]
 * @param {string} [cls]
 * @returns {HTMLElement}
 */
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/**
 * The outcome of an answer or record: the server's `outcome`, else (an answer of an older server)
 * valid or invalid by `reportValid`.
 * @param {{ outcome?: string, reportValid?: boolean }} r
 * @returns {Outcome}
 */
export function outcomeOf(r) {
  if (r.outcome === 'valid' || r.outcome === 'invalid' || r.outcome === 'unverifiable' || r.outcome === 'unattested') return r.outcome;
  return r.reportValid ? 'valid' : 'invalid';
}

/** What to do when the verifier could not decide, by failure code (the codes of src/errorCodes.ts). */
const ADVICE = /** @type {[string[], string][]} */ ([
  [['PCCS_UNAVAILABLE', 'PCCS_HTTP_ERROR', 'PCCS_BAD_RESPONSE'], 'the PCCS could not be reached: try again later, or configure collateralDir to verify typeA reports offline'],
  [
    ['PCCS_NOT_FOUND', 'TYPEA_COLLATERAL_UNAVAILABLE', 'TYPEA_FMSPC_MISMATCH', 'TYPEA_PCE_ID_MISMATCH', 'TYPEA_PCK_CRL_ISSUER_MISMATCH'],
    "the collateral for this report's platform is missing: try again later, or add it to the PCCS or the collateral directory (oracle-verifier collateral fetch)",
  ],
  [
    [
      'TYPEA_TCB_INFO_EXPIRED', 'TYPEA_TCB_INFO_NOT_YET_VALID', 'TYPEA_QE_IDENTITY_EXPIRED', 'TYPEA_QE_IDENTITY_NOT_YET_VALID', 'CRL_EXPIRED', 'CRL_NOT_YET_VALID',
      'TYPEA_TCB_INFO_MALFORMED', 'TYPEA_TCB_INFO_UNSUPPORTED_VERSION', 'TYPEA_TCB_INFO_BAD_SIGNATURE', 'TYPEA_QE_IDENTITY_MALFORMED',
      'TYPEA_QE_IDENTITY_UNSUPPORTED_VERSION', 'TYPEA_QE_IDENTITY_BAD_SIGNATURE', 'TYPEA_TCB_SIGNING_CHAIN_INVALID', 'TYPEA_TCB_SIGNING_CERT_REVOKED',
      'TYPEA_COLLATERAL_MALFORMED', 'CRL_MALFORMED', 'CRL_UNSUPPORTED_ALGORITHM', 'CRL_UNKNOWN_CRITICAL_EXTENSION', 'CRL_ISSUER_MISMATCH',
      'CRL_ISSUER_NOT_CRL_SIGNER', 'CRL_BAD_SIGNATURE',
    ],
    'the collateral is outdated or unusable at the verification time: refresh the PCCS cache or the collateral directory, then try again',
  ],
  [['POOL_OVERLOADED', 'POOL_TASK_TIMEOUT', 'POOL_CLOSED', 'POOL_WORKER_FAILED', 'HTTP_UPSTREAM_UNAVAILABLE', 'HTTP_UPSTREAM_TIMEOUT', 'LEDGER_LOOKUP_QUEUE_FULL', 'HTTP_INFLIGHT_LIMIT'], 'the verifier is busy: try again in a moment'],
  [
    ['LEDGER_NODE_UNREACHABLE', 'LEDGER_NODE_TIMEOUT', 'LEDGER_NODE_RATE_LIMITED', 'LEDGER_NODE_HTTP_ERROR', 'LEDGER_NODE_BAD_RESPONSE', 'LEDGER_NODE_BAD_TRANSACTION', 'LEDGER_NODE_BAD_BLOCKS'],
    'the ledger node could not be read: try again later',
  ],
  [['LEDGER_NODE_NOT_CONFIGURED'], 'no ledger node is configured: set liveCheck.apiBaseUrl'],
]);

/**
 * @param {string | undefined} code
 * @returns {string}
 */
export function adviceFor(code) {
  const hit = ADVICE.find(([codes]) => code !== undefined && codes.includes(code));
  return hit ? hit[1] : 'the verifier could not decide: try again later';
}

/**
 * The verdict line of an answer or record: `valid`, `invalid: reason (CODE)`, or
 * `could not verify: reason (CODE) — what to do`.
 * @param {Outcome} outcome
 * @param {string | undefined} errorString
 * @param {string | undefined} errorCode
 * @returns {string}
 */
export function verdictText(outcome, errorString, errorCode) {
  if (outcome === 'valid') return 'valid';
  if (outcome === 'unattested') return 'unattested write: oracle data written without a report (an owner or council overwrite)';
  const reason = `${errorString ?? 'no reason given'}${errorCode ? ` (${errorCode})` : ''}`;
  return outcome === 'unverifiable' ? `could not verify: ${reason} — ${adviceFor(errorCode)}` : `invalid: ${reason}`;
}

/**
 * An update judged as it stood at its block's time, and how it stands today beside it (the
 * verdict stays the one at its time): the sentences of the detail view.
 * @param {JudgedAsOf} j
 * @returns {{ then: string, today?: string }}
 */
export function judgedTexts(j) {
  const w = j.with;
  const then = `Judged as it stood at its block's time, ${j.time}${w?.tcbEvaluation !== undefined ? `, under TCB evaluation ${w.tcbEvaluation} (update=${w.tcbUpdate})` : ''}.`;
  const t = j.today;
  if (!t) return { then };
  const rated = t.tcbStatus ?? `no TCB level matches (${t.errorCode})`;
  const revoked = t.pckRevokedSince ? `; PCK certificate revoked since ${t.pckRevokedSince}` : t.pckCaRevokedSince ? `; PCK CA revoked since ${t.pckCaRevokedSince}` : '';
  const missing = t.missingEvaluations?.length ? `; the archive lacks evaluation ${t.missingEvaluations.join(', ')}` : '';
  const advisories = t.advisoryIds?.length ? ` (${t.advisoryIds.join(', ')})` : '';
  return { then, today: `Today: ${t.accepted ? 'accepted' : `not accepted (${t.rejectedBy})`}: ${rated}${advisories} under TCB evaluation ${t.tcbEvaluation}, since evaluation ${t.sinceEvaluation}${revoked}${missing}.` };
}

/** Valid at its block's time, not accepted today. @param {LedgerRecord} r */
export function validThenNotNow(r) {
  return outcomeOf(r) === 'valid' && r.judgedAsOf?.today?.accepted === false;
}

/** How an outcome is named in tables and headings. @param {Outcome} outcome */
export function outcomeLabel(outcome) {
  return outcome === 'unverifiable' ? 'could not verify' : outcome === 'unattested' ? 'unattested write' : outcome;
}

/** A failed request: its HTTP status and the JSON body the server sent. */
export class HttpError extends Error {
  /**
   * @param {string} message
   * @param {number} status
   * @param {Record<string, unknown>} body
   */
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** @param {string} message */
export function showError(message) {
  byId('errors').append(el('p', message));
}

export function clearErrors() {
  byId('errors').replaceChildren();
}

/**
 * Fetches JSON; any network failure, non-JSON answer or HTTP error becomes an Error with the
 * server's errorCode and errorString when it sent them.
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<unknown>}
 */
export async function fetchJson(url, init) {
  let r;
  try {
    r = await fetch(url, init);
  } catch (e) {
    throw new Error(`${init?.method ?? 'GET'} ${url} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = await r.text();
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${init?.method ?? 'GET'} ${url} answered HTTP ${r.status} with a body that is not JSON`);
  }
  if (!r.ok) {
    const b = /** @type {{ errorCode?: string, errorString?: string }} */ (body ?? {});
    throw new HttpError(`${init?.method ?? 'GET'} ${url} answered HTTP ${r.status}: ${b.errorCode ?? 'error'}: ${b.errorString ?? text}`, r.status, typeof body === 'object' && body !== null ? /** @type {Record<string, unknown>} */ (body) : {});
  }
  return body;
}

/** @param {string} b64 */
export function base64ToHex(b64) {
  const bin = atob(b64);
  let hex = '';
  for (let i = 0; i < bin.length; i++) hex += bin.charCodeAt(i).toString(16).padStart(2, '0');
  return hex;
}

/** The largest time a Date holds, in seconds: 8.64e15 ms after 1970 (year 275760). */
const MAX_DATE_SECONDS = 8.64e12;

/**
 * Why a userData timestamp (seconds since 1970) is not a date to show — 0, negative (the u64
 * 2^64−1 decodes as −1), beyond the last date a browser holds (such as 2^53−1) —, or undefined
 * when it is one.
 * @param {number} seconds
 * @returns {string | undefined}
 */
export function notADate(seconds) {
  if (!Number.isFinite(seconds)) return 'not a finite number';
  if (seconds === 0) return 'zero, no time was set';
  if (seconds < 0) return Number.isSafeInteger(seconds) ? `negative; as an unsigned 64-bit number ${(2n ** 64n + BigInt(seconds)).toString()}` : 'negative';
  if (seconds > MAX_DATE_SECONDS) return 'beyond the last date a browser can show, year 275760';
  return undefined;
}

/**
 * A userData timestamp as a UTC date, or — when it is no date — as its number with a note saying
 * why (never an exception: one odd value must not hide the rest of an answer).
 * @param {number | undefined} seconds
 */
export function readableTime(seconds) {
  if (typeof seconds !== 'number') return '';
  const why = notADate(seconds);
  if (why !== undefined) return `${seconds} (not a date: ${why})`;
  return `${new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, ' UTC')}`;
}

/**
 * The Time cell: the date, or the number with its note set apart.
 * @param {number | undefined} seconds
 * @returns {string | HTMLElement}
 */
function timeCell(seconds) {
  if (typeof seconds !== 'number' || notADate(seconds) === undefined) return readableTime(seconds);
  const cell = el('span', `${seconds} `, 'mono');
  cell.append(el('span', `(not a date: ${notADate(seconds)})`, 'note'));
  return cell;
}

/**
 * @typedef {{ targetUniqueId?: { hexEncoded?: string }, targetPcrValues?: { hexEncoded?: string[] } }} TargetForms
 * @typedef {TargetForms & { acceptedBuilds?: (TargetForms & { source: string })[], ledgerPrograms?: string[], ledgerWatcher?: boolean }} Info
 */

/**
 * Shows the configured targets (GET /info) in #targets (inside the "Configured targets"
 * disclosure) and keeps them for the measurement tables; returns the info record (undefined when
 * the request failed, which is shown).
 * @returns {Promise<Info | undefined>}
 */
export async function loadTargets() {
  const line = byId('targets');
  try {
    const info = /** @type {Info} */ (await fetchJson('/info'));
    if (info.targetUniqueId?.hexEncoded) targets.uniqueId = info.targetUniqueId.hexEncoded;
    if (info.targetPcrValues?.hexEncoded) targets.pcrs = info.targetPcrValues.hexEncoded;
    targets.builds = (info.acceptedBuilds ?? []).map((b) => ({
      source: b.source,
      ...(b.targetUniqueId?.hexEncoded ? { uniqueId: b.targetUniqueId.hexEncoded } : {}),
      ...(b.targetPcrValues?.hexEncoded ? { pcrs: b.targetPcrValues.hexEncoded } : {}),
    }));
    const more = targets.builds.length ? `; and ${targets.builds.length} other accepted build${targets.builds.length > 1 ? 's' : ''} (GET /info)` : '';
    line.textContent = `Configured targets: unique ID ${targets.uniqueId ?? '(none)'}; PCR0–2 ${(targets.pcrs ?? []).join(', ') || '(none)'}${more}`;
    return info;
  } catch (e) {
    line.textContent = 'Configured targets: unavailable';
    showError(e instanceof Error ? e.message : String(e));
    return undefined;
  }
}

/** A run of 13 or more characters without a space: hex, ids, codes, URLs, long numbers; never a word of prose. */
const LONG_TOKEN = /\S{13,}/;

/**
 * A table with a caption. Each cell carries its column's name (data-label: below 40rem every row
 * is one block, each cell under that name, style.css) and explicit ARIA roles, which stay when
 * the CSS changes the display of the table's parts. A text cell holding a long token may wrap
 * anywhere (class wrap); other words never break.
 * @param {string} heading
 * @param {string[]} head
 * @param {(string | HTMLElement)[][]} rows
 * @returns {HTMLElement}
 */
export function table(heading, head, rows) {
  const t = el('table');
  t.setAttribute('role', 'table');
  t.append(el('caption', heading));
  const hr = el('tr');
  hr.setAttribute('role', 'row');
  for (const h of head) {
    const th = el('th', h);
    th.setAttribute('role', 'columnheader');
    hr.append(th);
  }
  const th = el('thead');
  th.setAttribute('role', 'rowgroup');
  th.append(hr);
  t.append(th);
  const tb = el('tbody');
  tb.setAttribute('role', 'rowgroup');
  for (const row of rows) {
    const tr = el('tr');
    tr.setAttribute('role', 'row');
    row.forEach((cell, i) => {
      const td = el('td', undefined, typeof cell === 'string' && LONG_TOKEN.test(cell) ? 'wrap' : undefined);
      td.setAttribute('role', 'cell');
      td.dataset.label = head[i] ?? '';
      td.append(cell);
      tr.append(td);
    });
    tb.append(tr);
  }
  t.append(tb);
  return t;
}

/** @param {Check[] | undefined} checks */
export function checksList(checks) {
  const wrap = el('div');
  wrap.append(el('h3', 'Checks'));
  if (!checks || checks.length === 0) {
    wrap.append(el('p', 'No check trace in this answer.', 'note'));
    return wrap;
  }
  const ol = el('ol', undefined, 'checks');
  ol.setAttribute('aria-label', 'Checks');
  for (const c of checks) {
    const li = el('li', `${c.status}: ${c.title}${c.code ? ` — ${c.code}` : ''}`, c.status);
    li.dataset.check = c.id;
    ol.append(li);
  }
  wrap.append(ol);
  return wrap;
}

/**
 * One row per request (token) of multi-request userData; one row for single-request data.
 * @param {Decoded | undefined} first
 * @param {Decoded[] | undefined} all
 */
export function decodedTable(first, all) {
  const list = all && all.length > 0 ? all : first ? [first] : [];
  if (list.length === 0) return el('p', 'userData could not be decoded.', 'note');
  // The Token column only when a request carries a token id (era 2 on): no column of empty cells.
  const tokens = list.some((d) => d.tokenId !== undefined);
  return table(
    'Decoded data',
    [...(tokens ? ['Token'] : []), 'URL', 'Selector', 'Value', 'Time'],
    list.map((d) => [...(tokens ? [d.tokenId === undefined ? '' : String(d.tokenId)] : []), d.url ?? '', d.selector ?? '', d.attestationData ?? '', timeCell(d.timestamp)]),
  );
}

/**
 * @param {string} got
 * @param {string | undefined} want
 * @returns {HTMLElement}
 */
function compareCell(got, want) {
  if (want === undefined) return el('span', 'no target configured');
  return got.toLowerCase() === want.toLowerCase() ? el('span', 'matches', 'match') : el('span', 'mismatch', 'mismatch');
}

/**
 * The accepted build (GET /info acceptedBuilds) whose measurement the report carries, when it is
 * not the target: the unique ID, or all three PCRs of one build.
 * @param {{ uniqueId?: string, pcrs?: string[] }} m
 * @returns {AcceptedBuild | undefined}
 */
function acceptedBuildOf(m) {
  const same = (/** @type {string | undefined} */ a, /** @type {string | undefined} */ b) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();
  return (targets.builds ?? []).find((b) =>
    m.uniqueId !== undefined ? same(m.uniqueId, b.uniqueId) : m.pcrs !== undefined && b.pcrs !== undefined && m.pcrs.length >= 3 && [0, 1, 2].every((i) => same(m.pcrs?.[i], b.pcrs?.[i])),
  );
}

/**
 * A measurement printed once: the report's value; on a mismatch also the expected one, labelled.
 * @param {string} got
 * @param {string | undefined} want
 * @returns {HTMLElement}
 */
function valueCell(got, want) {
  if (want === undefined || got.toLowerCase() === want.toLowerCase()) return el('span', got, 'mono');
  const cell = el('span');
  cell.append(el('span', `report: ${got}`, 'mono'), el('br'), el('span', `expected: ${want}`, 'mono'));
  return cell;
}

/** @param {{ uniqueId?: string, pcrs?: string[] }} m */
export function measurementsTable(m) {
  const build = acceptedBuildOf(m);
  /** @type {Targets} */
  const want = build ?? targets;
  /** @type {(string | HTMLElement)[][]} */
  const rows = [];
  if (m.uniqueId) rows.push(['Unique ID', valueCell(m.uniqueId, want.uniqueId), compareCell(m.uniqueId, want.uniqueId)]);
  (m.pcrs ?? []).forEach((p, i) => rows.push([`PCR${i}`, valueCell(p, want.pcrs?.[i]), compareCell(p, want.pcrs?.[i])]));
  if (rows.length === 0) return el('p', 'No measurements could be read from the report.', 'note');
  const t = table('Measurements', ['Measurement', 'Value', build ? 'Against the accepted build' : 'Against the configured target'], rows);
  if (!build) return t;
  const box = el('div', '');
  const source = el('details', undefined, 'source');
  source.append(el('summary', "Not the configured target but an accepted build (config.json acceptedBuilds): where it comes from"), el('p', build.source, 'note'));
  box.append(t, source);
  return box;
}


/**
 * The inclusion proof of a stored update in words (docs/inclusion.md): proven in which block and
 * confirmed by whom, the link that broke, or why none was tried.
 * @param {Inclusion} i
 */
export function inclusionText(i) {
  if (i.status === 'proven') return `Inclusion proven: committed in block ${i.blockHash ?? '?'}, its hash confirmed by ${i.confirmedBy ?? '?'}`;
  if (i.status === 'failed') return `Inclusion not proven: the ${i.link ?? '?'} link broke (${i.code ?? '?'}): ${i.detail ?? ''}`;
  return `Inclusion not checked: ${i.why ?? 'no reason given'}`;
}
