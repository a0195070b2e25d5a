-- Schema version 8: the exact text of each injection (as injected, secrets
-- masked, cut to carryover.InjectionTextCap) and a short reason for it,
-- so that the audit log shows what the model was given and why. Records
-- from before keep '' for both. Adding columns with a constant default
-- rewrites no row: the migration costs the same on any store.
ALTER TABLE injections ADD COLUMN text TEXT NOT NULL DEFAULT '';
ALTER TABLE injections ADD COLUMN reason TEXT NOT NULL DEFAULT '';
