// Package logfile opens carryover's log: a size-capped file, rotated once
// to .1, never written through a symlink.
package logfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MaxBytes caps the log; the previous log is kept as .1.
const MaxBytes = 1 << 20

// Open opens the log at path for appending, rotating it when it is over
// MaxBytes. It refuses to write through a symlink.
func Open(path string) (*os.File, error) {
	if path == "" {
		return nil, errors.New("no place for the log: set HOME or XDG_STATE_HOME to an absolute path, or CARRYOVER_LOG")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("log %s is not a regular file", path)
		}
		if fi.Size() > MaxBytes {
			_ = os.Rename(path, path+".1")
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	return f, nil
}
