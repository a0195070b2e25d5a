-- Schema version 5: sessions the user forgot. Apply refuses a session
-- listed here, so that a later ingest, import or copy does not bring it
-- back. A session is recorded by carryover.ForgottenKey (a hash of its
-- id): the store keeps nothing that names it. A new, empty table: the
-- migration costs the same on any store.
CREATE TABLE forgotten (
	session_key TEXT PRIMARY KEY,
	time_ms     INTEGER NOT NULL
) WITHOUT ROWID;
