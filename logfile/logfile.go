// Package logfile opens carryover's log: a size-capped file, rotated once
// to .1, never written through a symlink, and only ever a file carryover
// started: its first line says so (Own).
package logfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// MaxBytes caps the log; the previous log is kept as .1.
const MaxBytes = 1 << 20

// ErrNotOwn means a file at the log's path that carryover did not start:
// it is left as it is, neither written, rotated nor renamed.
var ErrNotOwn = errors.New("not a log carryover started, left as is")

// header is the first line of every log carryover starts, in the format
// of the lines that follow (slog's text format).
func header(now time.Time) string {
	return fmt.Sprintf("time=%s level=INFO msg=\"carryover log\" pid=%d\n", now.UTC().Format(time.RFC3339Nano), os.Getpid())
}

// Own reports whether data, the start of a file, is the start of a log
// carryover wrote: a first line in slog's text format (the header, or the
// first record of a log started before there was one). A user's file
// (~/.bashrc, a config) does not start with "time=…".
func Own(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.HasPrefix(line, []byte("time=")) && bytes.Contains(line, []byte(" level=")) && bytes.Contains(line, []byte(" msg="))
}

// ownFile reports whether the regular file at path is a log carryover
// started. A missing file is not.
func ownFile(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return Own(head[:n]), nil
}

// Open opens the log at path for appending, rotating it when it is over
// MaxBytes. It creates a new log with a header line, and refuses a
// symlink, anything but a regular file, and a file carryover did not start
// (ErrNotOwn): CARRYOVER_LOG may name any file.
func Open(path string) (*os.File, error) {
	if path == "" {
		return nil, errors.New("no place for the log: set HOME or XDG_STATE_HOME to an absolute path, or CARRYOVER_LOG")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	for attempt := 0; ; attempt++ {
		f, err := create(path)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && attempt == 0 {
				continue // removed meanwhile
			}
			return nil, fmt.Errorf("log: %w", err)
		}
		if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("log %s is not a regular file", path)
		}
		if own, err := ownFile(path); err != nil {
			return nil, fmt.Errorf("log: %w", err)
		} else if !own {
			return nil, fmt.Errorf("log %s: %w", path, ErrNotOwn)
		}
		if fi.Size() > MaxBytes && attempt == 0 {
			if err := rotate(path); err != nil {
				return nil, err
			}
			continue
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|noFollow, 0)
		if err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
		return f, nil
	}
}

// create starts a new log at path, failing with fs.ErrExist when there is
// a file (or a link) there.
func create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		return nil, fmt.Errorf("log: %w", err)
	}
	if _, err := f.WriteString(header(time.Now())); err != nil {
		f.Close()
		return nil, fmt.Errorf("log: %w", err)
	}
	return f, nil
}

// rotate moves carryover's full log at path to path.1, replacing the
// previous one only when that is carryover's too; otherwise the full log
// is removed instead, and path.1 left alone.
func rotate(path string) error {
	old := path + ".1"
	if fi, err := os.Lstat(old); err == nil {
		if own, _ := ownFile(old); !own || !fi.Mode().IsRegular() {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("log: %w", err)
			}
			return nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("log: %w", err)
	}
	if err := os.Rename(path, old); err != nil {
		return fmt.Errorf("log: %w", err)
	}
	return nil
}
