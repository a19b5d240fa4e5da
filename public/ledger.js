// @ts-check
/**
 * The ledger page: the watcher's stored updates (GET /ledger/updates) as the table "Oracle
 * updates" with filters (outcome, kind, height range) and keyset pagination, a detail view per
 * update with its checks, an SVG chart of valid, invalid and unverifiable updates per day (the day
 * of the attested data's time), and a status strip (targets from /info, watcher height and lag from
 * /ledger/status, PCCS reachability from /status/pccs). Every failed request is shown in the alert
 * area. Outcomes: valid (green), invalid (red), unverifiable — "could not verify" (amber), with the
 * reason and what to do in the detail view. A server without a watcher gets one sentence on how to
 * enable it instead of the table and the chart.
 */
/** @typedef {import('./common.js').LedgerRecord} LedgerRecord */
/** @typedef {import('./common.js').Outcome} Outcome */
import { byId, checksList, clearErrors, decodedTable, el, fetchJson, HttpError, inclusionText, judgedTexts, loadTargets, measurementsTable, notADate, outcomeLabel, outcomeOf, showError, table, validThenNotNow, verdictText } from './common.js';

const PAGE = 20;
const CHART_LIMIT = 500;
/** @type {string | undefined} */
let nextCursor;

function filterQuery() {
  const q = new URLSearchParams();
  const form = /** @type {HTMLFormElement} */ (byId('filters'));
  for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim() !== '') q.set(k, v.trim());
  return q;
}

/** @param {unknown} e */
const message = (e) => (e instanceof Error ? e.message : String(e));

/**
 * @typedef {{ scannedHeight: number | null, tipHeight: number | null, lagBlocks: number | null, updates: { valid: number, invalid: number, unverifiable: number },
 *   mapping?: { keys: number, consistent: number, inconsistent: number, notChecked: number },
 *   watcher: { running: boolean, lastError?: { errorCode: string, errorString: string } } }} LedgerStatus
 */

/**
 * The status strip's line. Heights and the lag not known yet are said in words ("nothing scanned
 * yet", "tip not known yet"; no lag), never as "none" or "unknown blocks".
 * @param {LedgerStatus} s
 */
function watcherText(s) {
  const parts = [
    s.watcher.running ? 'running' : 'stopped',
    s.scannedHeight === null ? 'nothing scanned yet' : `scanned height ${s.scannedHeight}`,
    s.tipHeight === null ? 'tip not known yet' : `tip ${s.tipHeight}`,
  ];
  if (s.lagBlocks !== null) parts.push(`lag ${s.lagBlocks} block${s.lagBlocks === 1 ? '' : 's'}`);
  parts.push(`stored ${s.updates.valid} valid, ${s.updates.invalid} invalid, ${s.updates.unverifiable} unverifiable (could not verify)`);
  // The mapping cross-check, once stored transitions wrote keys (inconsistent ones: GET /ledger/consistency).
  if (s.mapping && s.mapping.keys > 0) {
    parts.push(`mapping keys ${s.mapping.consistent} consistent, ${s.mapping.inconsistent} inconsistent${s.mapping.inconsistent ? ' (listed at /ledger/consistency)' : ''}, ${s.mapping.notChecked} not checked`);
  }
  if (s.watcher.lastError) parts.push(`last error ${s.watcher.lastError.errorCode}: ${s.watcher.lastError.errorString}`);
  return `Watcher: ${parts.join('; ')}`;
}

/**
 * What the page says instead of the table and the chart when the server runs no watcher: that
 * nothing is stored, and the one change that turns the watcher on (with a ledger node configured,
 * only the `watch` key is missing).
 * @param {boolean} nodeConfigured GET /info names the followed programs (liveCheck.apiBaseUrl is set)
 */
function watchOff(nodeConfigured) {
  const how = nodeConfigured
    ? 'add "watch": { "enabled": true, "database": "ledger.db" } to config.json and restart; it follows the ledger node of liveCheck.apiBaseUrl, which is already set.'
    : 'set "liveCheck.apiBaseUrl" (the ledger node to follow) and add "watch": { "enabled": true, "database": "ledger.db" } in config.json, then restart.';
  return `The ledger watcher is off on this verifier (config.json has no "watch"), so no updates are stored here. To turn it on, ${how} Meanwhile, one transaction can be looked up on the Verify page.`;
}

/** Hides what only a watcher fills (filters, chart, table) and says why. @param {boolean} nodeConfigured */
function showWatchOff(nodeConfigured) {
  byId('strip').textContent = watchOff(nodeConfigured);
  for (const id of ['filters', 'chart-section', 'table-section']) byId(id).hidden = true;
}

/**
 * Fills the status strip. Returns false when the server runs no watcher (503
 * LEDGER_WATCH_NOT_CONFIGURED): the strip then says how to enable it, and the filters, the chart
 * and the table are hidden, not shown as failures.
 * @returns {Promise<boolean>}
 */
async function loadStatus() {
  const strip = byId('strip');
  try {
    strip.textContent = watcherText(/** @type {LedgerStatus} */ (await fetchJson('/ledger/status')));
    return true;
  } catch (e) {
    if (e instanceof HttpError && e.body.errorCode === 'LEDGER_WATCH_NOT_CONFIGURED') {
      showWatchOff(true);
      return false;
    }
    strip.textContent = 'Watcher: status unavailable';
    showError(message(e));
    return true;
  }
}

/**
 * @typedef {{ configured: boolean, collateralDir: boolean, url?: string, reachable: boolean | null, checkedAt?: string,
 *   latencyMs?: number, error?: string, errorCode?: string, circuit?: { state: string, until?: string } }} PccsStatus
 */

/**
 * The PCCS circuit breaker in words: what it means for typeA verifications now.
 * @param {{ state: string, until?: string }} c
 */
function circuitText(c) {
  if (c.state === 'open') return `the PCCS did not answer, so typeA reports whose collateral is not cached are "could not verify" at once until ${c.until ?? 'the cool-down ends'}; then one request tries the PCCS again`;
  if (c.state === 'half-open') return 'the PCCS did not answer before; the next typeA request tries it again and, if it answers, verification resumes';
  return `circuit ${c.state}`;
}

/** @param {PccsStatus} s */
function pccsText(s) {
  if (!s.configured) return s.collateralDir ? 'not configured (offline collateral directory)' : 'not configured';
  const where = `${s.url ?? 'PCCS'}${s.collateralDir ? ', after the collateral directory' : ''}; checked ${s.checkedAt ?? 'never'}`;
  // The circuit breaker: while open, typeA updates that need collateral are not verified before `until`.
  const c = s.circuit;
  const circuit = c && c.state !== 'closed' ? `; ${circuitText(c)}` : '';
  if (s.reachable) return `yes (${s.latencyMs ?? '?'} ms; ${where}${circuit})`;
  return `no (${s.error ?? 'no reason given'}${s.errorCode ? `, ${s.errorCode}` : ''}; ${where}${circuit})`;
}

async function loadPccs() {
  const line = byId('pccs');
  try {
    line.textContent = `PCCS reachable: ${pccsText(/** @type {PccsStatus} */ (await fetchJson('/status/pccs')))}`;
  } catch (e) {
    line.textContent = 'PCCS reachable: unknown (the status request failed)';
    showError(message(e));
  }
}

/** The verdict's time and today's standing beside it, when judged at its block's time. @param {LedgerRecord} r */
function judgedParagraphs(r) {
  if (!r.judgedAsOf) return [];
  const t = judgedTexts(r.judgedAsOf);
  return [el('p', t.then, 'note'), ...(t.today ? [el('p', t.today, r.judgedAsOf.today?.accepted ? 'today-accepted' : 'today-rejected')] : [])];
}

/** @param {LedgerRecord} r */
function showDetail(r) {
  const body = byId('detail-body');
  const outcome = outcomeOf(r);
  body.replaceChildren(
    el('p', verdictText(outcome, r.errorString, r.errorCode), `outcome-${outcome}`),
    ...judgedParagraphs(r),
    ...(r.inclusion ? [el('p', inclusionText(r.inclusion), r.inclusion.status === 'proven' ? 'note' : 'today-rejected')] : []),
    el('p', `Transaction ${r.transactionId}, transition ${r.transitionId}, block ${r.blockHeight}, ${r.program}/${r.function}, ${r.reportType}; verified ${r.verifiedAt}`, 'note'),
    ...(r.unrecognized ? [el('p', 'Unrecognized: the program registry does not name this program or function; its inputs have the shape of an update, so it was verified as one. Add it to ledgerPrograms in config.json.', 'note')] : []),
    ...(r.written ? [el('p', `Wrote ${r.written.mapping}[${r.written.key}] = ${r.written.value}`)] : []),
    checksList(r.checks),
    decodedTable(r.decodedData, r.decodedRequests),
    measurementsTable(r.measurements),
    el('p', r.reportType === 'typeA' ? `TCB status: ${r.tcbStatus ?? 'unknown'}` : 'TCB status: not applicable'),
  );
  byId('detail').hidden = false;
  byId('detail-h').focus();
}

/** The outcome, with "not valid now" beside a valid verdict the policy no longer accepts today. @param {LedgerRecord} r */
function outcomeCell(r) {
  const outcome = outcomeOf(r);
  const cell = el('span', outcomeLabel(outcome), `outcome-${outcome}`);
  if (validThenNotNow(r)) cell.append(' ', el('span', '(not valid now)', 'today-rejected'));
  return cell;
}

/** @param {LedgerRecord[]} records */
function showTable(records) {
  const rows = records.map((r) => {
    const b = /** @type {HTMLButtonElement} */ (el('button', 'Details'));
    b.type = 'button';
    b.setAttribute('aria-label', `Details of the update at block ${r.blockHeight}, transition ${r.transitionId}`);
    b.addEventListener('click', () => showDetail(r));
    return [String(r.blockHeight), r.transactionId, `${r.program}/${r.function}${r.unrecognized ? ' (unrecognized)' : ''}`, r.reportType, outcomeCell(r), r.errorCode ?? '', b];
  });
  const t = table('Oracle updates', ['Height', 'Transaction', 'Program / function', 'Kind', 'Outcome', 'Error', ''], rows);
  byId('updates').replaceChildren(records.length === 0 ? el('p', 'No stored update matches the filters.') : t);
}

/** @param {string | undefined} cursor */
async function loadPage(cursor) {
  const q = filterQuery();
  q.set('limit', String(PAGE));
  if (cursor) q.set('cursor', cursor);
  try {
    const page = /** @type {{ updates: LedgerRecord[], nextCursor?: string }} */ (await fetchJson(`/ledger/updates?${q}`));
    showTable(page.updates);
    nextCursor = page.nextCursor;
  } catch (e) {
    nextCursor = undefined;
    byId('updates').replaceChildren(el('p', 'The updates could not be loaded.'));
    showError(message(e));
  }
  /** @type {HTMLButtonElement} */ (byId('next-page')).disabled = nextCursor === undefined;
}

/** The chart's bar of updates whose attested time is not a date (0, negative, beyond year 275760). */
const NO_DATE = 'no date';

/**
 * The day (UTC) of an update: the attested data's time, else the verification time; NO_DATE when
 * the attested time is not a date.
 * @param {LedgerRecord} r
 */
function dayOf(r) {
  const ts = r.decodedData?.timestamp;
  if (typeof ts === 'number' && notADate(ts) !== undefined) return NO_DATE;
  const t = typeof ts === 'number' ? ts * 1000 : Date.parse(r.verifiedAt);
  return Number.isNaN(t) ? NO_DATE : new Date(t).toISOString().slice(0, 10);
}

/** @param {LedgerRecord[]} records */
function drawChart(records) {
  /** @type {Map<string, Record<Outcome, number>>} */
  const days = new Map();
  for (const r of records) {
    const d = days.get(dayOf(r)) ?? { valid: 0, invalid: 0, unverifiable: 0, unattested: 0 };
    d[outcomeOf(r)]++;
    days.set(dayOf(r), d);
  }
  // Days in order, the updates without a date last.
  const list = [...days].sort(([a], [b]) => (a === NO_DATE ? 1 : b === NO_DATE ? -1 : a < b ? -1 : 1));
  const box = byId('chart');
  if (list.length === 0) {
    box.replaceChildren(el('p', 'No updates to chart.'));
    return;
  }
  const NS = 'http://www.w3.org/2000/svg';
  const max = Math.max(...list.map(([, c]) => c.valid + c.invalid + c.unverifiable + c.unattested));
  const barW = 28;
  const h = 120;
  const width = Math.max(200, list.length * (barW + 12) + 10);
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${h + 40}`);
  svg.setAttribute('width', '100%');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `Updates per day (valid, invalid, could not verify, unattested writes): ${list.map(([d, c]) => `${d} ${c.valid} valid, ${c.invalid} invalid, ${c.unverifiable} could not verify, ${c.unattested} unattested`).join('; ')}`);
  list.forEach(([day, c], i) => {
    const x = 10 + i * (barW + 12);
    const vh = (c.valid / max) * h;
    const ih = (c.invalid / max) * h;
    const uh = (c.unverifiable / max) * h;
    const ah = (c.unattested / max) * h;
    const segments = /** @type {[string, number, number][]} */ ([['valid', h - vh, vh], ['invalid', h - vh - ih, ih], ['unverifiable', h - vh - ih - uh, uh], ['unattested', h - vh - ih - uh - ah, ah]]);
    for (const [cls, y, hh] of segments) {
      const rect = document.createElementNS(NS, 'rect');
      rect.setAttribute('x', String(x));
      rect.setAttribute('y', String(y));
      rect.setAttribute('width', String(barW));
      rect.setAttribute('height', String(hh));
      rect.setAttribute('class', `bar-${cls}`);
      svg.append(rect);
    }
    const label = document.createElementNS(NS, 'text');
    label.setAttribute('x', String(x));
    label.setAttribute('y', String(h + 14));
    label.setAttribute('font-size', '9');
    label.textContent = day === NO_DATE ? NO_DATE : day.slice(5);
    svg.append(label);
    const count = document.createElementNS(NS, 'text');
    count.setAttribute('x', String(x));
    count.setAttribute('y', String(h + 28));
    count.setAttribute('font-size', '9');
    count.textContent = `${c.valid}/${c.invalid}/${c.unverifiable}${c.unattested ? `/${c.unattested}` : ''}`;
    svg.append(count);
  });
  const undated = days.get(NO_DATE);
  const notes = [el('p', `Green: valid, red: invalid, amber: could not verify; labels: month-day and valid/invalid/could-not-verify counts (latest ${CHART_LIMIT} matching updates).`, 'note')];
  if (undated) {
    const n = undated.valid + undated.invalid + undated.unverifiable;
    notes.push(el('p', `${n} update(s) attest a time that is not a date (0, negative, or beyond year 275760): counted under "${NO_DATE}"; the detail view shows the number.`, 'note'));
  }
  box.replaceChildren(svg, ...notes);
}

async function loadChart() {
  const q = filterQuery();
  q.set('limit', String(CHART_LIMIT));
  try {
    const page = /** @type {{ updates: LedgerRecord[] }} */ (await fetchJson(`/ledger/updates?${q}`));
    drawChart(page.updates);
  } catch (e) {
    byId('chart').replaceChildren(el('p', 'The chart could not be loaded.'));
    showError(message(e));
  }
}

function reload() {
  clearErrors();
  byId('detail').hidden = true;
  void loadPage(undefined);
  void loadChart();
}

function main() {
  byId('detail-h').tabIndex = -1;
  byId('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    reload();
  });
  byId('first-page').addEventListener('click', () => void loadPage(undefined));
  byId('next-page').addEventListener('click', () => void loadPage(nextCursor));
  void loadPccs();
  // The table and the chart only when a watcher runs. GET /info says whether one does, so a
  // server without one is not asked for its status (no 503 in the console); an older server that
  // does not say is asked, and its 503 LEDGER_WATCH_NOT_CONFIGURED handled the same way.
  void loadTargets().then(async (info) => {
    if (info?.ledgerWatcher === false) return showWatchOff(Array.isArray(info.ledgerPrograms));
    if (await loadStatus()) reload();
  });
}

main();
