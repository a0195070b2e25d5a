package carryover

import "errors"

var (
	// ErrNotFound is returned when a session, chunk or state does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew means the store was written by a newer carryover.
	ErrSchemaTooNew = errors.New("store schema is newer than this carryover")
	// ErrForgotten is returned by Store.Apply for a session that was
	// forgotten (see PruneFilter.Forget): nothing of the batch is stored.
	ErrForgotten = errors.New("session was forgotten")
)

// HintError is an error with what the user can do about it; the CLI
// prints the hint after the error.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }
