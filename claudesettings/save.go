package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// state is what an uninstall needs to know about a file's past and cannot
// read from the file: kept in the sidecar stateFile(path).
type state struct {
	// Created: the file did not exist before carryover's install.
	Created bool `json:"created,omitempty"`
	// Empty maps the JSON pointer of an empty container that an install
	// filled ("" for the document, "/hooks", "/hooks/Stop") to its text.
	Empty map[string]string `json:"empty,omitempty"`
	// StatusLine is the JSON text of the statusLine command carryover's
	// wraps, as it was written.
	StatusLine string `json:"status_line,omitempty"`
}

func (s *state) remember(ptr, text string) {
	if s.Empty == nil {
		s.Empty = map[string]string{}
	}
	s.Empty[ptr] = text
}

// forget drops ptr and everything under it.
func (s *state) forget(ptr string) {
	for k := range s.Empty {
		if k == ptr || strings.HasPrefix(k, ptr+"/") {
			delete(s.Empty, k)
		}
	}
}

func (s state) empty() bool { return !s.Created && len(s.Empty) == 0 && s.StatusLine == "" }

// stateFile is the sidecar of the settings file at path.
func stateFile(path string) string { return path + ".carryover-state" }

// readState reads a sidecar. A missing, unreadable or foreign one is no
// state: uninstall then falls back to dropping the containers it empties.
func readState(path string) state {
	var s state
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return s
	}
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &s) != nil {
		return state{}
	}
	return s
}

// Save writes the edited content and returns the path of the backup it made
// of the previous content ("" if the file did not exist or nothing changed).
// It refuses a path that became a symlink (ErrSymlink), a file that
// changed since Load (ErrChanged) and a read-only one (ErrReadOnly). It writes a temporary file in the same
// directory, syncs it and renames it over the original, keeping the
// original's permissions (0600 for a new file, in directories created 0700).
// A file carryover created and an uninstall emptied is removed instead.
func (f *File) Save() (backup string, err error) {
	remove := f.removes()
	switch {
	case !f.existed && (f.src == nil || remove):
		return "", nil // still nothing to write
	case f.existed && !remove && bytes.Equal(f.src, f.orig):
		return "", nil
	}
	if f.lock != "" {
		unlock, err := lockDir(f.lock)
		if err != nil {
			return "", err
		}
		defer unlock()
	}
	fi, err := os.Lstat(f.path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", ErrSymlink
	case err == nil && !f.existed, errors.Is(err, fs.ErrNotExist) && f.existed:
		return "", ErrChanged
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	case err == nil && !fi.Mode().IsRegular():
		return "", errors.New("not a regular file")
	case err == nil && fi.Mode().Perm()&0o200 == 0:
		// Renaming over it would succeed: the mode is a request, not a lock.
		return "", fmt.Errorf("%w (mode %04o)", ErrReadOnly, fi.Mode().Perm())
	}
	if f.existed {
		cur, err := os.ReadFile(f.path)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(cur, f.orig) {
			return "", ErrChanged
		}
		if backup, err = f.backupFile(); err != nil {
			return "", err
		}
	}
	dir := filepath.Dir(f.path)
	if remove {
		if err := os.Remove(f.path); err != nil {
			return backup, err
		}
		if err := syncDir(dir); err != nil {
			return backup, err
		}
	} else {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return backup, err
		}
		if err := writeAtomic(f.path, f.src, f.mode); err != nil {
			return backup, err
		}
	}
	if err := f.saveState(remove); err != nil {
		return backup, fmt.Errorf("record install state: %w", err)
	}
	f.existed, f.orig = !remove, bytes.Clone(f.src)
	if remove {
		f.orig, f.src, f.root, f.state = nil, nil, nil, state{}
	}
	return backup, nil
}

// backupFile copies the loaded content to the backup path set by SetBackup
// (private, replacing an older backup), or else next to the file, named by
// the time.
func (f *File) backupFile() (string, error) {
	if f.backup != "" {
		if err := os.MkdirAll(filepath.Dir(f.backup), 0o700); err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		if err := writeAtomic(f.backup, f.orig, 0o600); err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		return f.backup, nil
	}
	base := f.path + ".carryover-backup-" + f.now().UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		_, err = out.Write(f.orig)
		if err == nil {
			err = out.Sync()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("backup: %w", err)
		}
		return name, nil
	}
}

// saveState writes the sidecar while carryover's entries are in the file
// and there is something to remember, and removes it otherwise.
func (f *File) saveState(removed bool) error {
	s := state{Created: f.state.Created}
	if !removed && f.hasOurs() {
		// Keep only containers that still exist and are not empty.
		for ptr, text := range f.state.Empty {
			if n := f.lookup(ptr); n != nil && n.len() > 0 {
				s.remember(ptr, text)
			}
		}
		if f.hasOurStatusLine() {
			s.StatusLine = f.state.StatusLine
		}
	} else {
		s = state{}
	}
	path := stateFile(f.path)
	if s.empty() {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		f.state = s
		return nil
	}
	old := readState(path)
	if old.Created == s.Created && maps.Equal(old.Empty, s.Empty) && old.StatusLine == s.StatusLine {
		f.state = s
		return nil
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	f.state = s
	return nil
}

// lookup resolves the pointers state uses, which only go through objects:
// "", "/hooks", "/hooks/<event>", "/mcpServers", "/projects/<dir>".
func (f *File) lookup(ptr string) *node {
	n := f.root
	if n == nil || ptr == "" {
		return n
	}
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	for key := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		if n.kind != kindObject {
			return nil
		}
		if n, _ = n.last(unescape.Replace(key)); n == nil {
			return nil
		}
	}
	return n
}

// Claude Code's lock on its config file, taken by its lock library
// (proper-lockfile): a directory, whose holder refreshes its mtime and which
// counts as abandoned once that is older than lockStale.
const (
	lockStale = 10 * time.Second
	lockWait  = 3 * time.Second
)

// lockDir takes the lock directory path, waiting up to lockWait for its
// holder and taking over an abandoned one. unlock releases it.
func lockDir(path string) (unlock func(), err error) {
	deadline := time.Now().Add(lockWait)
	for {
		err := os.Mkdir(path, 0o700)
		if err == nil {
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > lockStale {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("lock: remove abandoned %s: %w", path, err)
			}
			continue
		}
		if time.Now().After(deadline) {
			return nil, ErrLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeAtomic replaces path with data so that a reader, or a crash, sees
// either the old or the new content, never a mix.
func writeAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = keepOwner(tmp, path); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
