package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/internal/progress"
)

// tally is what a store holds, in brief: an import that changes none of
// it added nothing.
type tally struct{ sessions, turns, chunks int }

func storeTally(ctx context.Context, st carryover.Store) (tally, error) {
	ss, err := st.Sessions(ctx, carryover.SessionFilter{})
	var t tally
	for _, s := range ss {
		t.sessions++
		t.turns += s.Turns
		t.chunks += s.Chunks
	}
	return t, err
}

func (a *app) cmdImport(ctx context.Context, args []string) error {
	fl := a.newFlags("import")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{"import: give one export file ('-' for standard input)"}
	}
	var in io.Reader = a.stdin
	var size int64
	if pos[0] != "-" {
		// Non-blocking: opening a FIFO no one writes would wait forever,
		// before the check below could refuse it.
		f, err := os.OpenFile(pos[0], os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("import: %s is not a regular file", pos[0])
		}
		in, size = f, fi.Size()
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	before, err := storeTally(ctx, st)
	if err != nil {
		return err
	}
	bar := progress.New(a.stderr, size, "import")
	rep, err := exportfile.Read(ctx, bar.Reader(in), st, exportfile.ReadOptions{Redactor: a.redactor})
	bar.Done()
	if errors.Is(err, exportfile.ErrVersion) {
		return hintErr{fmt.Errorf("import %s: %w", pos[0], err), "import it with the carryover that wrote it, or a newer one"}
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", pos[0], err)
	}
	after, err := storeTally(ctx, st)
	if err != nil {
		return err
	}
	if after == before && rep.NewInjections == 0 && rep.NewNotes == 0 && rep.Read.Sessions > 0 {
		fmt.Fprintf(a.stdout, "already imported, nothing new: this store holds all of %s (%s, %s)\n", pos[0],
			plural(rep.Read.Sessions, "session"), plural(rep.Read.Chunks, "chunk"))
		return nil
	}
	fmt.Fprintf(a.stdout, "imported %s: %s, %s, %s read; %s and %s added (%d already present)\n",
		plural(rep.Read.Sessions, "session"), plural(rep.Read.Chunks, "chunk"), plural(rep.Read.Items, "item"),
		plural(rep.Read.Compactions, "compaction"), plural(rep.NewInjections, "injection"), plural(rep.NewNotes, "note"), rep.Present)
	if rep.Skipped > 0 {
		fmt.Fprintf(a.stdout, "skipped %s forgotten in this store (see 'carryover forget --undo')\n", plural(rep.Skipped, "session"))
	}
	if !rep.Header.Redacted {
		fmt.Fprintln(a.stdout, "note: the export was not redacted; secrets in it were masked on import")
	}
	return nil
}
