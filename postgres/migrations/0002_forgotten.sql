-- Schema version 2: sessions their owner forgot. Apply refuses a session
-- its owner forgot, so that a later ingest, import or copy does not bring
-- it back. A session is recorded by carryover.ForgottenKey (a hash of its
-- id): the table keeps nothing that names it. Owner-scoped like every other table (same row-level security).
-- After upgrading, grant the users this table like the others (see
-- docs/postgres.md: GRANT ... ON ALL TABLES IN SCHEMA).

CREATE TABLE forgotten (
	owner       text NOT NULL,
	team        text NOT NULL DEFAULT '',
	session_key text NOT NULL,
	time        timestamptz NOT NULL,
	PRIMARY KEY (owner, session_key)
);

ALTER TABLE forgotten ENABLE ROW LEVEL SECURITY;
CREATE POLICY forgotten_read ON forgotten FOR SELECT USING (owner = current_user OR team IN (SELECT unnest(carryover_teams())));
CREATE POLICY forgotten_insert ON forgotten FOR INSERT WITH CHECK (owner = current_user);
CREATE POLICY forgotten_update ON forgotten FOR UPDATE USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY forgotten_delete ON forgotten FOR DELETE USING (owner = current_user);
