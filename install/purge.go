package install

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/cmdhelp"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/storeopen"
)

// purgeList is what 'uninstall --purge' deletes: only files carryover
// made. Paths that do not exist are not listed.
type purgeList struct {
	store   string   // the store, when it is carryover's
	files   []string // the store's -wal, -shm and journals, moved-aside copies and theirs
	marks   []string // pending marks in the spool directory
	spool   string   // the spool directory, removed once empty
	logs    []string
	foreign []string // files in the spool directory carryover did not write: kept
	// The recall indexes the hooks keep beside the store, and their
	// directory, removed once empty (files carryover did not write there
	// are kept, and so is the directory).
	indexes  []string
	indexDir string
	keepDir  bool
}

func (p *purgeList) paths() []string {
	var out []string
	if p.store != "" {
		out = append(out, p.store)
	}
	out = append(out, p.files...)
	out = append(out, p.marks...)
	if p.spool != "" && len(p.foreign) == 0 {
		out = append(out, p.spool+string(filepath.Separator))
	}
	if p.indexDir != "" && !p.keepDir {
		out = append(out, p.indexDir+string(filepath.Separator))
	} else {
		out = append(out, p.indexes...)
	}
	return append(out, p.logs...)
}

// movedAsideName matches the copies storeopen.MoveAsideOnce makes of a damaged
// store: <store>.corrupt-<UTC time>[-n].
var movedAsideName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.corrupt-\d{8}T\d{6}(-\d+)?$`) })

// Archive is where carryover keeps what a purge deletes.
type Archive struct {
	DB  string // the store
	Log string // the log, "" for none
	// CustomLog is set when the user named the log (CARRYOVER_LOG): it
	// may be any file, and is deleted only if it reads as a log.
	CustomLog bool
}

// list finds what a purge deletes. A store path holding anything but a
// carryover store is an error, and nothing is listed.
func (a Archive) list(ctx context.Context) (*purgeList, error) {
	db := a.DB
	p := &purgeList{}
	switch err := storeopen.Owned(ctx, db); {
	case err == nil:
		p.store = db
		p.files = existing(append([]string{db + "-wal", db + "-shm"}, storeopen.JournalFiles(db)...)...)
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, hint(fmt.Errorf("purge %s: %w", db, err),
			"carryover deletes only its own store, and nothing was changed; check --db, CARRYOVER_DB and the db setting of your config")
	}
	moved, err := storeopen.MovedAside(db)
	if err != nil {
		return nil, fmt.Errorf("purge: %w", err)
	}
	for _, m := range moved {
		if movedAsideName().MatchString(m) {
			p.files = append(p.files, existing(append([]string{m, m + "-wal", m + "-shm"}, storeopen.JournalFiles(m)...)...)...)
		}
	}
	dir := spool.Dir(db)
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("purge: %w", err)
		}
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			if e.Type().IsRegular() && (carryover.ValidSessionID(e.Name()) == nil || strings.HasPrefix(e.Name(), ".mark-")) {
				p.marks = append(p.marks, name)
			} else {
				p.foreign = append(p.foreign, name)
			}
		}
		p.spool = dir
	}
	dir = hook.RecallIndexDir(db)
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("purge: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && hook.IsRecallIndexFile(e.Name()) {
				p.indexes = append(p.indexes, filepath.Join(dir, e.Name()))
			} else {
				p.keepDir = true
				p.foreign = append(p.foreign, filepath.Join(dir, e.Name()))
			}
		}
		p.indexDir = dir
	}
	// The default log is carryover's file in carryover's directory; one
	// that CARRYOVER_LOG names may be anything, and goes only if it reads
	// as a log.
	log := a.Log
	if log == "" {
		return p, nil
	}
	for _, l := range []string{log, log + ".1"} {
		fi, err := os.Lstat(l)
		if err == nil && fi.Mode().IsRegular() && (!a.CustomLog || isCarryoverLog(l)) {
			p.logs = append(p.logs, l)
		}
	}
	return p, nil
}

// existing returns the paths that exist (as anything but a directory).
func existing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// isCarryoverLog reports whether path is a regular file holding what
// carryover's log holds: lines of slog's text format. CARRYOVER_LOG may
// name any file; only a log is deleted.
func isCarryoverLog(path string) bool {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	lines := 0
	for sc.Scan() && lines < 20 {
		line := sc.Text()
		if !strings.HasPrefix(line, "time=") || !strings.Contains(line, " level=") {
			return false
		}
		lines++
	}
	return sc.Err() == nil && lines > 0
}

// purge deletes what l lists, after asking unless yes.
func (in *Installer) purge(l *purgeList, yes bool) error {
	paths := l.paths()
	if len(paths) == 0 {
		fmt.Fprintln(in.Stdout, "nothing to purge: no carryover store or log")
		return nil
	}
	if !yes {
		fmt.Fprintf(in.Stderr, "this deletes the archive and everything in it:\n  %s\ndelete? [y/N] ", strings.Join(paths, "\n  "))
		line, _ := bufio.NewReader(in.Stdin).ReadString('\n')
		if !cmdhelp.Confirmed(line) {
			fmt.Fprintln(in.Stderr, "purge cancelled: the archive is kept")
			return nil
		}
	}
	var files []string
	if l.store != "" {
		files = append(files, l.store)
	}
	files = append(files, l.files...)
	files = append(files, l.marks...)
	files = append(files, l.indexes...)
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("purge: %w", err)
		}
	}
	if l.spool != "" && len(l.foreign) == 0 {
		if err := os.Remove(l.spool); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("purge: %w", err)
		}
	}
	if l.indexDir != "" && !l.keepDir {
		if err := os.Remove(l.indexDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("purge: %w", err)
		}
	}
	for _, f := range l.logs {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("purge: %w", err)
		}
	}
	if l.store != "" {
		fmt.Fprintf(in.Stdout, "deleted the archive %s\n", l.store)
	}
	for _, f := range append(l.files, l.logs...) {
		fmt.Fprintf(in.Stdout, "deleted %s\n", f)
	}
	if len(l.marks) > 0 {
		fmt.Fprintf(in.Stdout, "deleted %d pending marks in %s\n", len(l.marks), l.spool)
	}
	if len(l.indexes) > 0 {
		fmt.Fprintf(in.Stdout, "deleted %d recall indexes in %s\n", len(l.indexes), l.indexDir)
	}
	if len(l.foreign) > 0 {
		fmt.Fprintf(in.Stdout, "kept %s: carryover did not write it\n", strings.Join(l.foreign, ", "))
	}
	in.reportKept()
	return nil
}
