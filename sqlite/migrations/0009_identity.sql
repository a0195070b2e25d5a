-- Schema version 9: sessions and projects as users see them.
--
-- A subagent's transcript is a session whose parent is the session that
-- ran it: "<parent>/agent-<id>" ids (the subagents/ layout) get theirs
-- here; the older flat layout's "agent-<id>" sessions get theirs when
-- their transcript is ingested again (only it names the parent).
--
-- A project was the directory a session ran in. It is now the root of the
-- git repository there (the main worktree's root for every worktree), so
-- a session keeps its own directory (cwd, the former project) and branch.
-- The projects are mapped to their roots after this file, in Go (see
-- identity.go): only the file system knows them.
ALTER TABLE sessions ADD COLUMN parent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN cwd TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN branch TEXT NOT NULL DEFAULT '';
UPDATE sessions SET cwd = (SELECT root FROM projects WHERE id = sessions.project_id);
UPDATE sessions SET parent = substr(id, 1, instr(id, '/') - 1) WHERE instr(id, '/') > 1;
CREATE INDEX sessions_parent ON sessions (parent) WHERE parent <> '';
