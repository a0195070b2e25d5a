package carryover

import "errors"

var (
	// ErrNotFound is returned when a session, chunk or state does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew means the store was written by a newer carryover.
	ErrSchemaTooNew = errors.New("store schema is newer than this carryover")
)
