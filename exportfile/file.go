package exportfile

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/carryover-dev/carryover"
)

// WriteFile writes an export of st to the file path. It writes beside
// path and renames, so a failed export never leaves half a file under the
// name.
func WriteFile(ctx context.Context, path string, st carryover.Store, opt WriteOptions) (Counts, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".carryover-export-*")
	if err != nil {
		return Counts{}, err
	}
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err := WriteBuffered(ctx, f, st, opt)
	if err != nil {
		return n, err
	}
	if err := f.Sync(); err != nil {
		return n, err
	}
	if err := f.Close(); err != nil {
		return n, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return n, err
	}
	f = nil
	return n, nil
}

// WriteBuffered is Write through a large buffer, flushed at the end.
func WriteBuffered(ctx context.Context, w io.Writer, st carryover.Store, opt WriteOptions) (Counts, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	n, err := Write(ctx, bw, st, opt)
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
