package hook

import "context"

// PostToolUseFailure runs after a tool call that failed (Claude Code 2.1:
// a Bash command's non-zero exit, a tool's error; not a call the user or
// the permission rules refused, which fires no hook). When the archive
// holds the same or a near-identical failure from before the session's
// last compaction, or from an earlier session of the project (a project
// is the repository: its worktrees are one), that was fixed, it
// injects what fixed it: once per failure per context window,
// in at most retrieve.FailureBudget characters. In a subagent (agent_id
// set) it recalls from the parent session's archive and injects into the
// subagent. It never archives: the failed call's transcript line may not
// be written yet, and Stop and PreCompact archive it.
func (r *run) postToolFailure(ctx context.Context) error {
	return r.recallFailure(ctx, r.in.Error)
}
