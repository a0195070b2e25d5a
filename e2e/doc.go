// Package e2e holds end-to-end tests that drive the real Claude Code CLI
// against a fake Messages API, with carryover installed by its own installer.
//
// The CLI is pinned and installed by scripts/install-claude-code.sh into
// .cache/claude-code/ (CARRYOVER_CLAUDE overrides the binary). Without it the
// tests skip, unless CI=true, where they fail. Run them with scripts/e2e.sh.
//
// Besides carryover's own compaction round trips, some tests pin down Claude
// Code behaviour that carryover's design relies on; docs/claude-code-behaviour.md
// lists those facts with the test that shows each.
package e2e
