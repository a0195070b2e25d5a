-- Schema version 9: one project per Windows directory.
--
-- Windows compares paths without regard to the drive letter's case, and
-- Claude Code reports a session's directory as it was typed or inherited:
-- C:\src\shop and c:\src\shop were two projects. Every project that is a
-- Windows path is renamed to one form (upper-case drive letter,
-- backslashes) after this file, in Go (see identity.go), on any system:
-- a store may hold sessions imported from a Windows machine. Projects
-- that then share a name are merged.
SELECT 1;
