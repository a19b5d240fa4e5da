/**
 * The store's SQLite schema (version 6) and its migrations, applied in one transaction on open:
 * version 1 gains the retry columns (its unverifiable updates due at once); 2 the lease; 3 the
 * mapping cross-check; 4 and older the trigger-kept summaries, built from their rows; 5 and older
 * the completeness table and the count of unrecognized updates. WAL journal, so that a range's
 * records and the scannedHeight they advance are written together or not at all.
 */
import Database from 'better-sqlite3';
import { VerifierError } from '../../errors.js';
import { fail } from './guard.js';

const SCHEMA_VERSION = 6;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS updates (
  seq INTEGER PRIMARY KEY,
  transition_id TEXT NOT NULL UNIQUE,
  transaction_id TEXT NOT NULL,
  block_height INTEGER NOT NULL,
  report_type TEXT NOT NULL,
  report_valid INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  record TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  retry_at INTEGER
);
CREATE INDEX IF NOT EXISTS updates_order ON updates (block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_transaction ON updates (transaction_id);
CREATE INDEX IF NOT EXISTS updates_retry ON updates (retry_at) WHERE retry_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS updates_outcome_order ON updates (outcome, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_valid_order ON updates (report_valid, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_order ON updates (report_type, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_outcome_order ON updates (report_type, outcome, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_kind_valid_order ON updates (report_type, report_valid, block_height DESC, transition_id DESC);
CREATE INDEX IF NOT EXISTS updates_unrecognized_order ON updates (block_height DESC, transition_id DESC) WHERE json_extract(record, '$.unrecognized') = 1;
CREATE TABLE IF NOT EXISTS scan_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  scanned_height INTEGER,
  tip_height INTEGER
);
INSERT OR IGNORE INTO scan_state (id, scanned_height, tip_height) VALUES (1, NULL, NULL);
CREATE TABLE IF NOT EXISTS program_scans (
  program TEXT PRIMARY KEY,
  from_height INTEGER NOT NULL,
  scanned_height INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS mapping_writes (
  seq INTEGER PRIMARY KEY,
  transition_id TEXT NOT NULL,
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  role TEXT NOT NULL,
  data TEXT,
  attestation_timestamp TEXT,
  UNIQUE (transition_id, program, mapping, key, role)
);
CREATE INDEX IF NOT EXISTS mapping_writes_key ON mapping_writes (program, mapping, key, seq);
CREATE INDEX IF NOT EXISTS mapping_writes_value ON mapping_writes (program, mapping, attestation_timestamp, data);
CREATE TABLE IF NOT EXISTS completeness (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  status TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS mapping_checks (
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  checked_seq INTEGER NOT NULL,
  checked_at TEXT NOT NULL,
  result TEXT NOT NULL,
  PRIMARY KEY (program, mapping, key)
);
CREATE TABLE IF NOT EXISTS mapping_keys (
  program TEXT NOT NULL,
  mapping TEXT NOT NULL,
  key TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  status TEXT,
  checked_at TEXT,
  PRIMARY KEY (program, mapping, key)
);
CREATE INDEX IF NOT EXISTS mapping_keys_status ON mapping_keys (status, program, mapping, key);
CREATE INDEX IF NOT EXISTS mapping_keys_due ON mapping_keys ((status IS NOT NULL), checked_at, program, mapping, key);
CREATE TABLE IF NOT EXISTS store_counts (
  name TEXT PRIMARY KEY,
  n INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

/**
 * Version ≤ 4 → 5: the summaries the counts read (a scrape of /metrics, GET /ledger/status and the
 * watcher's choice of keys to check read them at every call: without them each was a scan of every
 * update or every mapping write, ≈ 0.1–0.3 s of the event loop at 100,000 updates), built from the
 * rows already stored; the triggers (TRIGGERS) keep them current from then on.
 */
const MIGRATE_TO_5 = `
DELETE FROM mapping_keys;
INSERT INTO mapping_keys (program, mapping, key, last_seq, status, checked_at)
  SELECT w.program, w.mapping, w.key, w.last, CASE WHEN c.checked_seq >= w.last THEN c.status END, c.checked_at
  FROM (SELECT program, mapping, key, max(seq) AS last FROM mapping_writes GROUP BY program, mapping, key) w
  LEFT JOIN mapping_checks c ON c.program = w.program AND c.mapping = w.mapping AND c.key = w.key;
DELETE FROM store_counts;
INSERT INTO store_counts (name, n) SELECT 'outcome:' || outcome, count(*) FROM updates GROUP BY outcome;
INSERT INTO store_counts (name, n) SELECT 'mapping:keys', count(*) FROM mapping_keys;
INSERT INTO store_counts (name, n) SELECT 'mapping:' || status, count(*) FROM mapping_keys WHERE status IS NOT NULL GROUP BY status;
`;

/** Version ≤ 5 → 6: the count of unrecognized updates, from the rows already stored. */
const MIGRATE_TO_6 = `
DELETE FROM store_counts WHERE name = 'unrecognized';
INSERT INTO store_counts (name, n) SELECT 'unrecognized', count(*) FROM updates WHERE json_extract(record, '$.unrecognized') = 1;
`;

/**
 * What keeps the summaries current, in the transaction of each write:
 * - store_counts \`outcome:X\`: updates by outcome (insert; a retried update's outcome changing);
 * - mapping_keys: each key written, its newest write (last_seq) and the status of its latest check
 *   while that check judged the newest write (NULL: never checked, or written again since), with
 *   the check's time (the oldest checks are checked again first);
 * - store_counts \`mapping:keys\` and \`mapping:STATUS\`: keys, and keys by current status;
 * - store_counts \`unrecognized\`: updates whose record says `unrecognized` (insert, a retried
 *   record rewritten, delete).
 */
const TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS updates_counted AFTER INSERT ON updates BEGIN
  INSERT INTO store_counts (name, n) VALUES ('outcome:' || NEW.outcome, 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_recounted AFTER UPDATE OF outcome ON updates WHEN OLD.outcome IS NOT NEW.outcome BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'outcome:' || OLD.outcome;
  INSERT INTO store_counts (name, n) VALUES ('outcome:' || NEW.outcome, 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_uncounted AFTER DELETE ON updates BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'outcome:' || OLD.outcome;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_counted AFTER INSERT ON updates WHEN json_extract(NEW.record, '$.unrecognized') = 1 BEGIN
  INSERT INTO store_counts (name, n) VALUES ('unrecognized', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_recounted AFTER UPDATE OF record ON updates
  WHEN (json_extract(OLD.record, '$.unrecognized') = 1) IS NOT (json_extract(NEW.record, '$.unrecognized') = 1) BEGIN
  INSERT INTO store_counts (name, n) VALUES ('unrecognized', CASE WHEN json_extract(NEW.record, '$.unrecognized') = 1 THEN 1 ELSE -1 END)
    ON CONFLICT (name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER IF NOT EXISTS updates_unrecognized_uncounted AFTER DELETE ON updates WHEN json_extract(OLD.record, '$.unrecognized') = 1 BEGIN
  UPDATE store_counts SET n = n - 1 WHERE name = 'unrecognized';
END;
CREATE TRIGGER IF NOT EXISTS mapping_writes_keyed AFTER INSERT ON mapping_writes BEGIN
  INSERT INTO mapping_keys (program, mapping, key, last_seq, status, checked_at) VALUES (NEW.program, NEW.mapping, NEW.key, NEW.seq, NULL, NULL)
    ON CONFLICT (program, mapping, key) DO UPDATE SET
      status = CASE WHEN excluded.last_seq > last_seq THEN NULL ELSE status END,
      last_seq = max(last_seq, excluded.last_seq);
END;
CREATE TRIGGER IF NOT EXISTS mapping_checks_keyed AFTER INSERT ON mapping_checks BEGIN
  UPDATE mapping_keys SET status = CASE WHEN NEW.checked_seq >= last_seq THEN NEW.status END, checked_at = NEW.checked_at
    WHERE program = NEW.program AND mapping = NEW.mapping AND key = NEW.key;
END;
CREATE TRIGGER IF NOT EXISTS mapping_keys_counted AFTER INSERT ON mapping_keys BEGIN
  INSERT INTO store_counts (name, n) VALUES ('mapping:keys', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1;
  INSERT INTO store_counts (name, n) SELECT 'mapping:' || NEW.status, 1 WHERE NEW.status IS NOT NULL ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS mapping_keys_recounted AFTER UPDATE OF status ON mapping_keys WHEN OLD.status IS NOT NEW.status BEGIN
  UPDATE store_counts SET n = n - 1 WHERE OLD.status IS NOT NULL AND name = 'mapping:' || OLD.status;
  INSERT INTO store_counts (name, n) SELECT 'mapping:' || NEW.status, 1 WHERE NEW.status IS NOT NULL ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
`;

/** Version 1 → 2: retry bookkeeping; the unverifiable updates of a version 1 store are due at once. */
const MIGRATE_1_TO_2 = `
ALTER TABLE updates ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE updates ADD COLUMN retry_at INTEGER;
UPDATE updates SET retry_at = 0 WHERE outcome = 'unverifiable';
`;

/** Opens (creating or migrating) the store's database at `file`. */
export function openStoreDatabase(file: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
  } catch (e) {
    return fail('STORE_OPEN_FAILED', `store: cannot open the database ${file}: ${(e as Error).message}`);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'`).get() as { n: number };
    if (version === 0 && tables.n > 0) fail('STORE_SCHEMA_MISMATCH', `store: ${file} is an SQLite database of something else (it has tables but no schema version)`);
    if (!Number.isInteger(version) || version < 0 || version > SCHEMA_VERSION) fail('STORE_SCHEMA_MISMATCH', `store: ${file} has schema version ${version}, this verifier reads versions 1 to ${SCHEMA_VERSION - 1} (migrated on open) and ${SCHEMA_VERSION}`);
    db.transaction(() => {
      if (version === 1) db.exec(MIGRATE_1_TO_2);
      db.exec(SCHEMA);
      if (version < 5) db.exec(MIGRATE_TO_5);
      if (version < 6) db.exec(MIGRATE_TO_6);
      db.exec(TRIGGERS);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } catch (e) {
    db.close();
    if (e instanceof VerifierError) throw e;
    return fail('STORE_OPEN_FAILED', `store: cannot use the database ${file}: ${(e as Error).message}`);
  }
  return db;
}
