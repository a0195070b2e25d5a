-- Schema version 3: every row is bound to the role that wrote it.
--
-- Versions 1 and 2 checked only the owner of a new row. A role could share
-- rows with a team it is not in, add chunks, items and compactions to
-- another role's session (they name it by id), and hold a key another
-- role's ingest would write (a session id, an item's (session, kind,
-- key), a compaction's (session, window)): that ingest then failed on
-- every hook, and the error told whether the key existed. Now:
--
--   * a session is (id, owner): each role has sessions of its own, and a
--     chunk, item or compaction belongs to a session of its own owner
--     (foreign keys on (session_id, owner)). Every unique key includes the
--     owner, so no role's row collides with another's.
--   * a new or updated row's team is '' or a role the writer is a member of
--     on the server (carryover_teams(), from pg_has_role);
--   * an item points only at a chunk of its own owner;
--   * another role's rows naming a session id the reader owns are not part
--     of the reader's session: the reader does not see them.

-- carryover_teams() read pg_roles through the caller's search_path, where
-- a temporary table of that name comes first: qualify every name and pin
-- the path.
CREATE OR REPLACE FUNCTION carryover_teams() RETURNS text[] LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
	SELECT coalesce(array_agg(rolname::text), '{}') FROM pg_catalog.pg_roles
	WHERE rolname <> current_user AND pg_catalog.pg_has_role(current_user, oid, 'MEMBER')
$$;

ALTER TABLE chunks DROP CONSTRAINT chunks_session_id_fkey;
ALTER TABLE items DROP CONSTRAINT items_session_id_fkey, DROP CONSTRAINT items_session_id_kind_key_key;
ALTER TABLE compactions DROP CONSTRAINT compactions_session_id_fkey, DROP CONSTRAINT compactions_pkey;
-- id first: most reads look a session up by id.
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey, ADD PRIMARY KEY (id, owner);

-- Rows a role wrote into another role's session become a private session
-- of their writer's with that id.
WITH moved AS (
	INSERT INTO sessions (id, owner, team, project)
	SELECT DISTINCT x.session_id, x.owner, '', s.project
	FROM (SELECT session_id, owner FROM chunks UNION SELECT session_id, owner FROM items
		UNION SELECT session_id, owner FROM compactions) x
	JOIN sessions s ON s.id = x.session_id AND s.owner <> x.owner
	RETURNING id, owner
), c AS (
	UPDATE chunks x SET team = '' FROM moved m WHERE x.session_id = m.id AND x.owner = m.owner
), i AS (
	UPDATE items x SET team = '' FROM moved m WHERE x.session_id = m.id AND x.owner = m.owner
)
UPDATE compactions x SET team = '' FROM moved m WHERE x.session_id = m.id AND x.owner = m.owner;

-- Rows shared with a team their owner is not a member of become private
-- (when both are roles: an owner or team that is no role is a label that
-- row security never matched). This undoes what a role shared with a team
-- it was not in, and, since nothing tells the two apart, what a former
-- member shared.
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['sessions', 'chunks', 'items', 'compactions', 'injections', 'notes', 'hook_runs', 'redactions', 'forgotten'] LOOP
		EXECUTE format($q$UPDATE %I x SET team = '' WHERE x.team <> '' AND EXISTS (SELECT 1
			FROM pg_catalog.pg_roles o, pg_catalog.pg_roles r WHERE o.rolname = x.owner AND r.rolname = x.team
			AND NOT pg_catalog.pg_has_role(o.oid, r.oid, 'MEMBER'))$q$, t);
	END LOOP;
END
$$;

ALTER TABLE chunks ADD FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE;
ALTER TABLE items ADD FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE,
	ADD UNIQUE (session_id, owner, kind, key);
ALTER TABLE compactions ADD FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE,
	ADD PRIMARY KEY (session_id, owner, win);

-- The policies. A row is readable by its owner, and by the members of its
-- team unless the reader has a session of that id (then it is another
-- role's row under the reader's session id, not part of the reader's
-- session). It is written, changed and removed only by its owner, and
-- shared only with a team the owner is a member of.
DO $$
DECLARE
	t text;
	team_ok constant text := $q$(team = '' OR team = ANY ((SELECT carryover_teams())::text[]))$q$;
	read text;
	write text;
BEGIN
	FOREACH t IN ARRAY ARRAY['sessions', 'chunks', 'items', 'compactions', 'injections', 'notes', 'hook_runs', 'redactions', 'forgotten'] LOOP
		EXECUTE format('DROP POLICY %I ON %I', t || '_read', t);
		EXECUTE format('DROP POLICY %I ON %I', t || '_insert', t);
		EXECUTE format('DROP POLICY %I ON %I', t || '_update', t);
		EXECUTE format('DROP POLICY %I ON %I', t || '_delete', t);
		read := $q$owner = current_user OR team <> '' AND team = ANY ((SELECT carryover_teams())::text[])$q$;
		IF t IN ('chunks', 'items', 'compactions', 'injections', 'notes', 'hook_runs') THEN
			read := read || format(' AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = %I.session_id AND s.owner = current_user)', t);
		END IF;
		write := 'owner = current_user AND ' || team_ok;
		IF t = 'items' THEN
			write := write || ' AND (chunk_id IS NULL OR EXISTS (SELECT 1 FROM chunks c WHERE c.id = items.chunk_id AND c.owner = current_user))';
		END IF;
		EXECUTE format('CREATE POLICY %I ON %I FOR SELECT USING (%s)', t || '_read', t, read);
		EXECUTE format('CREATE POLICY %I ON %I FOR INSERT WITH CHECK (%s)', t || '_insert', t, write);
		EXECUTE format('CREATE POLICY %I ON %I FOR UPDATE USING (owner = current_user) WITH CHECK (%s)', t || '_update', t, write);
		EXECUTE format('CREATE POLICY %I ON %I FOR DELETE USING (owner = current_user)', t || '_delete', t);
	END LOOP;
END
$$;
