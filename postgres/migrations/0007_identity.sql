-- Schema version 7: sessions and projects as users see them (the embedded
-- store's version 9).
--
-- A subagent's transcript is a session whose parent is the session that
-- ran it (of the same owner): "<parent>/agent-<id>" ids get theirs here,
-- the older flat layout's "agent-<id>" sessions when their transcript is
-- ingested again.
--
-- A project was the directory a session ran in. It is now the root of the
-- git repository there (the main worktree's root for every worktree), so a
-- session keeps its own directory (cwd, the former project) and branch.
-- Projects are mapped to their roots after this file, in Go (see
-- identity.go), where the directories exist on the machine that migrates.
ALTER TABLE sessions ADD COLUMN parent text NOT NULL DEFAULT '',
	ADD COLUMN cwd text NOT NULL DEFAULT '',
	ADD COLUMN branch text NOT NULL DEFAULT '';
UPDATE sessions SET cwd = project;
UPDATE sessions SET parent = split_part(id, '/', 1) WHERE strpos(id, '/') > 1;
CREATE INDEX sessions_parent ON sessions (parent, owner) WHERE parent <> '';
