package exportfile

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/replace"
	"github.com/carryover-dev/carryover/retrieve"
)

// Sessions lists what an export writes, oldest first, so that a reader
// sees sessions in the order they happened: session with its subagents
// when it is not nil, else the sessions of project ("" for all).
func Sessions(ctx context.Context, st carryover.Store, session *carryover.Session, project string) ([]carryover.Session, error) {
	var sessions []carryover.Session
	if session != nil {
		subs, err := retrieve.Subagents(ctx, st, session.ID)
		if err != nil {
			return nil, err
		}
		sessions = append([]carryover.Session{*session}, subs...)
	} else {
		var err error
		if sessions, err = st.Sessions(ctx, carryover.SessionFilter{Project: project}); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Started.Before(sessions[j].Started) })
	return sessions, nil
}

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
	if err := replace.File(f.Name(), path); err != nil {
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
