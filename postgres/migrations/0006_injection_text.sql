-- Schema version 6: the exact text of each injection (as injected, secrets
-- masked, cut to carryover.InjectionTextCap) and a short reason for it,
-- so that the audit log shows what the model was given and why. Records
-- from before keep '' for both. A column with a constant default rewrites
-- no row, and the table's row security covers the new columns.
ALTER TABLE injections ADD COLUMN text text NOT NULL DEFAULT '',
	ADD COLUMN reason text NOT NULL DEFAULT '';
