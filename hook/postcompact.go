package hook

import "context"

// PostCompact runs after a compaction. Claude Code does not inject its
// output, so it only archives the boundary and the summary (SessionStart
// with source "compact", which runs just before it, restores).
func (r *run) postCompact(ctx context.Context) error {
	_, err := r.archive(ctx)
	return err
}
