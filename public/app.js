// @ts-check
/**
 * The verify page: POST /decodeReport for a pasted userData/report pair, GET /ledger/transactions/{id}
 * for a transaction id; shows the verdict, the ordered checks, the decoded data (one row per
 * request), the measurements beside the configured targets (GET /info), the TCB status and the
 * full JSON for download. The verdict is three-valued: valid (green), invalid (red: a check failed
 * on the evidence) or "could not verify" (amber: the verifier could not decide — PCCS down, pool
 * full, ledger node unreachable — with the reason and what to do). Every failed request is shown
 * in the alert area. Plain ES module,
 * type-checked by tsc (public/tsconfig.json); all data is inserted as text, never as HTML.
 */

/**
 * @typedef {{ reportType?: string, reportValid: boolean, outcome?: string, errorString?: string, errorCode?: string, checks?: Check[],
 *   decodedData?: Decoded, decodedRequests?: Decoded[], decodedReport?: Record<string, unknown> }} DecodeReportBody
 */
/** @typedef {import('./common.js').Check} Check */
/** @typedef {import('./common.js').Outcome} Outcome */
/** @typedef {import('./common.js').Decoded} Decoded */
/** @typedef {import('./common.js').LedgerRecord} LedgerRecord */
/** @typedef {{ transactionId: string, blockHeight: number, updates: LedgerRecord[] }} TransactionBody */

import {
  byId, checksList, clearErrors, decodedTable, el, fetchJson, HttpError, loadTargets, measurementsTable, outcomeLabel, outcomeOf, showError, base64ToHex, verdictText,
} from './common.js';

let downloadUrl = '';

/** @param {Record<string, unknown> | undefined} report */
function reportMeasurements(report) {
  if (!report) return {};
  if (typeof report.uniqueId === 'string') return { uniqueId: base64ToHex(report.uniqueId) };
  const pcrs = /** @type {Record<string, unknown> | undefined} */ (report.pcrs);
  if (pcrs && typeof pcrs === 'object') {
    const list = ['0', '1', '2'].map((k) => pcrs[k]).filter((v) => typeof v === 'string');
    return { pcrs: list.map((v) => base64ToHex(/** @type {string} */ (v))) };
  }
  return {};
}

/**
 * @param {string | undefined} reportType
 * @param {string | undefined} status
 * @param {unknown} advisories
 */
function tcbLine(reportType, status, advisories) {
  if (reportType !== 'typeA') return el('p', `TCB status: not applicable (${reportType ?? 'unknown'} report)`);
  const ids = Array.isArray(advisories) ? advisories.map(String) : [];
  return el('p', `TCB status: ${status ?? 'unknown'}; advisories: ${ids.length ? ids.join(', ') : 'none'}`);
}

/**
 * @param {Outcome} outcome
 * @param {string} text
 */
function setVerdict(outcome, text) {
  const v = byId('verdict');
  v.className = outcome;
  v.textContent = text;
}

/**
 * Shows the result section and brings the verdict to where the eye is: scrolled into view and
 * focused (it is a role=status live region, so screen readers announce it too).
 */
function revealResult() {
  byId('result').hidden = false;
  const v = byId('verdict');
  v.scrollIntoView({ block: 'start' });
  v.focus({ preventScroll: true });
}

/** @param {unknown} body */
function offerDownload(body) {
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' }));
  byId('download').setAttribute('href', downloadUrl);
}

/** @param {DecodeReportBody} b */
function showReport(b) {
  const outcome = outcomeOf(b);
  setVerdict(outcome, verdictText(outcome, b.errorString, b.errorCode));
  const d = byId('details');
  const rep = b.decodedReport ?? {};
  d.replaceChildren(
    el('p', `Report kind: ${b.reportType ?? 'not detected'}`),
    checksList(b.checks),
    decodedTable(b.decodedData, b.decodedRequests),
    measurementsTable(reportMeasurements(b.decodedReport)),
    tcbLine(b.reportType, typeof rep.tcbStatusName === 'string' ? rep.tcbStatusName : undefined, rep.advisoryIds),
  );
  offerDownload(b);
  revealResult();
}

/** @param {TransactionBody} t */
function showTransaction(t) {
  // Red when an update is invalid; else amber when one could not be verified; else green.
  const bad = t.updates.find((u) => outcomeOf(u) === 'invalid');
  const undecided = t.updates.find((u) => outcomeOf(u) === 'unverifiable');
  if (t.updates.length === 0) setVerdict('invalid', 'invalid: the transaction holds no oracle update');
  else if (bad) setVerdict('invalid', verdictText('invalid', bad.errorString, bad.errorCode));
  else if (undecided) setVerdict('unverifiable', verdictText('unverifiable', undecided.errorString, undecided.errorCode));
  else setVerdict('valid', 'valid');
  const d = byId('details');
  d.replaceChildren(el('p', `Transaction ${t.transactionId} at block height ${t.blockHeight}: ${t.updates.length} oracle update(s)`));
  t.updates.forEach((u, i) => {
    const s = el('section');
    const outcome = outcomeOf(u);
    s.append(
      el('h3', `Update ${i + 1}: ${u.program}/${u.function} — ${outcomeLabel(outcome)}`),
      el('p', verdictText(outcome, u.errorString, u.errorCode), `outcome-${outcome}`),
      el('p', `Transition ${u.transitionId}; report kind ${u.reportType}${u.errorCode ? `; ${u.errorCode}: ${u.errorString ?? ''}` : ''}`, 'note'),
      checksList(u.checks),
      decodedTable(u.decodedData, u.decodedRequests),
      measurementsTable(u.measurements),
      tcbLine(u.reportType, u.tcbStatus, undefined),
    );
    d.append(s);
  });
  offerDownload(t);
  revealResult();
}

/**
 * A request the verifier could not decide (its answer says unverifiable, or the ledger node or the
 * verifier is unavailable: 502, 503, 504) is shown as an amber verdict too, with what to do.
 * @param {HttpError} e
 */
function showUndecided(e) {
  const b = /** @type {{ outcome?: unknown, errorString?: unknown, errorCode?: unknown }} */ (e.body);
  if (b.outcome !== 'unverifiable' && ![502, 503, 504].includes(e.status)) return;
  const str = (/** @type {unknown} */ v) => (typeof v === 'string' ? v : undefined);
  setVerdict('unverifiable', verdictText('unverifiable', str(b.errorString), str(b.errorCode)));
  byId('details').replaceChildren(el('p', `The verifier answered HTTP ${e.status}: no verdict was reached.`, 'note'));
  offerDownload(e.body);
  revealResult();
}

/** What a verification waits for (typeA: the verifier may be fetching collateral from the PCCS). */
const WAITING_VERIFY = 'waiting for the verifier (typeA reports may wait for the PCCS)…';
const WAITING_LOOKUP = 'waiting for the ledger node and the verifier (typeA reports may wait for the PCCS)…';
/** A request that takes longer than this shows what it waits for and for how long. */
const PROGRESS_AFTER_MS = 1000;

/**
 * Shows, from PROGRESS_AFTER_MS on, what the request waits for and a seconds counter; the
 * returned function hides it again.
 * @param {string} what
 * @returns {() => void}
 */
function showProgress(what) {
  const started = Date.now();
  const line = byId('progress');
  const time = byId('progress-time');
  const tick = () => {
    if (line.hidden) {
      byId('progress-what').textContent = what;
      line.hidden = false;
    }
    time.textContent = `${Math.floor((Date.now() - started) / 1000)} s`;
  };
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let every;
  const first = setTimeout(() => {
    tick();
    every = setInterval(tick, 1000);
  }, PROGRESS_AFTER_MS);
  return () => {
    clearTimeout(first);
    clearInterval(every);
    line.hidden = true;
    byId('progress-what').textContent = '';
    time.textContent = '';
  };
}

/**
 * Runs one request for a form: clears the old result and errors, disables the button meanwhile,
 * and says what it waits for when it takes longer than a second.
 * @param {HTMLFormElement} form
 * @param {string} waitingFor
 * @param {() => Promise<void>} run
 */
async function submitting(form, waitingFor, run) {
  const button = /** @type {HTMLButtonElement | null} */ (form.querySelector('button[type="submit"]'));
  clearErrors();
  byId('result').hidden = true;
  if (button) button.disabled = true;
  const done = showProgress(waitingFor);
  try {
    await run();
  } catch (e) {
    showError(e instanceof Error ? e.message : String(e));
    if (e instanceof HttpError) showUndecided(e);
  } finally {
    done();
    if (button) button.disabled = false;
  }
}

/** Fills the verify form with the README's example request (GET /page/example.json: a real Nitro pair, valid on the bundled config). */
async function loadExample() {
  clearErrors();
  try {
    const body = /** @type {{ userData: string, report: string }} */ (await fetchJson('/page/example.json'));
    /** @type {HTMLTextAreaElement} */ (byId('userData')).value = body.userData;
    /** @type {HTMLTextAreaElement} */ (byId('report')).value = body.report;
    byId('example-note').hidden = false;
  } catch (e) {
    showError(`the example could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function main() {
  byId('verdict').tabIndex = -1;
  const verifyForm = /** @type {HTMLFormElement} */ (byId('verify-form'));
  const lookupForm = /** @type {HTMLFormElement} */ (byId('lookup-form'));
  verifyForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const userData = /** @type {HTMLTextAreaElement} */ (byId('userData')).value.trim();
    const report = /** @type {HTMLTextAreaElement} */ (byId('report')).value.trim();
    void submitting(verifyForm, WAITING_VERIFY, async () => {
      const body = await fetchJson('/decodeReport', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userData, report }) });
      showReport(/** @type {DecodeReportBody} */ (body));
    });
  });
  byId('load-example').addEventListener('click', () => void loadExample());
  lookupForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = /** @type {HTMLInputElement} */ (byId('txid')).value.trim();
    void submitting(lookupForm, WAITING_LOOKUP, async () => {
      const body = await fetchJson(`/ledger/transactions/${encodeURIComponent(id)}`);
      showTransaction(/** @type {TransactionBody} */ (body));
    });
  });
  void loadTargets();
}

main();
