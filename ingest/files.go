package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/carryover-dev/carryover"
)

// TranscriptFiles expands paths into absolute transcript files: a file as
// is, a directory into its .jsonl files (subagent transcripts included,
// the compaction agent's own transcripts excluded: they repeat the
// session). Finding none is an error.
func TranscriptFiles(paths ...string) ([]string, error) {
	var files []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fs, err := transcriptFiles(abs)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("ingest: no .jsonl transcripts under %s", strings.Join(paths, ", "))
	}
	return files, nil
}

// transcriptFiles expands a path into transcript files: a file as is, a
// directory into its .jsonl files (subagent transcripts included, the
// compaction agent's own transcripts excluded: they repeat the session).
func transcriptFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		name := d.Name()
		if d.Type().IsRegular() && strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-acompact-") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	sort.Strings(files)
	return files, nil
}

// Backfill catches up, batch chunks at a time until none is left, the
// chunks a store archived before it stored vectors, index entries or
// spans (a hook does one batch), and returns how many it went through. A
// store that is no carryover.Backfiller does nothing.
func Backfill(ctx context.Context, st carryover.Store, batch int) (int, error) {
	caught := 0
	bf, ok := st.(carryover.Backfiller)
	for ok {
		n, err := bf.Backfill(ctx, batch)
		if err != nil {
			return caught, fmt.Errorf("catch up older chunks: %w", err)
		}
		caught += n
		if n == 0 {
			break
		}
	}
	return caught, nil
}
