package hook

import "context"

// Stop runs when the model finishes a turn (and PostToolUse, when
// installed, after each tool call): it archives what is new, so that the
// archive is current before any compaction. It prints nothing.
func (r *run) stop(ctx context.Context) error {
	_, err := r.archive(ctx)
	return err
}
