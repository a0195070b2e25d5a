-- Schema version 3: owner and team of a session, hook runs for stats, and
-- running counts of masked secrets.

ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN team TEXT NOT NULL DEFAULT '';

CREATE TABLE hook_runs (
	id         INTEGER PRIMARY KEY,
	time_ms    INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL,
	event      TEXT NOT NULL,
	latency_us INTEGER NOT NULL,
	outcome    TEXT NOT NULL,
	chars      INTEGER NOT NULL
);
CREATE INDEX hook_runs_time ON hook_runs (time_ms);
CREATE INDEX hook_runs_session ON hook_runs (session_id, id);

CREATE TABLE redactions (
	project TEXT NOT NULL,
	kind    TEXT NOT NULL,
	count   INTEGER NOT NULL,
	PRIMARY KEY (project, kind)
);
