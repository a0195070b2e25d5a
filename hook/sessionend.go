package hook

import "context"

// SessionEnd runs when the session ends (exit, /clear, end of -p). Claude
// Code gives it about 1.5 s, so it only archives what is new, with its own
// shorter deadline (Config.SessionEndTimeout); there is no next hook to
// finish what it does not. It also removes the recall indexes left idle,
// which the restore, whose latency the user waits for, need not.
func (r *run) sessionEnd(ctx context.Context) error {
	_, err := r.archive(ctx)
	pruneRecallIndexes(r.h.Config.DB)
	return err
}
