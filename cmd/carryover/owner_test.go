//go:build unix

package main

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/storeopen"
)

// foreignFiles writes, in dir, files of other programs that --db may name
// by mistake: another application's SQLite database (rollback journal,
// mode 0644), one marked with its own application id, and a plain file.
// It returns their paths and contents.
func foreignFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for name, id := range map[string]int{"places.sqlite": 0, "marked.sqlite": 0x4d6f7a21} {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.com/')"); err != nil {
			t.Fatal(err)
		}
		if id != 0 {
			if _, err := db.Exec("PRAGMA application_id = 1299151393"); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		files[path] = nil
	}
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files[plain] = nil
	for p := range files {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	return files
}

// checkUntouched fails unless path holds want, with mode 0644 and no
// -wal, -shm or journal beside it.
func checkUntouched(t *testing.T, path string, want []byte) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: changed (%v)", filepath.Base(path), err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v (%v), want 0644 as it was", filepath.Base(path), fi.Mode().Perm(), err)
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(path + side); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s%s appeared", filepath.Base(path), side)
		}
	}
}

// TestForeignStoreLeftAlone: --db or CARRYOVER_DB naming another
// program's file: the CLI refuses with an error naming it (once) and a
// hint, every hook is a quiet no-op that logs why, and uninstall --purge
// deletes nothing; the file keeps its bytes and mode, and gets no -wal or
// -shm.
func TestForeignStoreLeftAlone(t *testing.T) {
	dir := t.TempDir()
	files := foreignFiles(t, dir)
	transcript := filepath.Join(dir, demoID+".jsonl")
	if err := os.WriteFile(transcript, demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "carryover.log")
	for path, want := range files {
		env := map[string]string{"HOME": dir, "CARRYOVER_LOG": log}
		for _, args := range [][]string{
			{"--db", path, "ingest", transcript},
			{"--db", path, "search", "pdf"},
			{"--db", path, "sessions"},
			{"--db", path, "status"},
			{"--db", path, "note", "a decision"},
		} {
			out, errOut, code := runCLI(t, env, "", args...)
			if code == 0 {
				t.Errorf("%s: exit 0\n%s", strings.Join(args, " "), out)
			}
			if !strings.Contains(errOut, "open store "+path+": ") || !strings.Contains(errOut, "not a carryover store, left as is") ||
				strings.Count(errOut, "open store") != 1 || !strings.Contains(errOut, "hint: carryover uses only a store it created") {
				t.Errorf("%s: stderr does not say once which file is not a store, and what to do:\n%s", strings.Join(args, " "), errOut)
			}
		}
		env["CARRYOVER_DB"] = path
		for _, ev := range hook.Events {
			h := &hookEnv{dir: dir, db: path, transcript: transcript, env: env}
			before, _ := os.ReadFile(log)
			out := h.run(t, ev.Arg(), h.payloadAt(ev, transcript))
			if ev != hook.PreCompact && out != "" {
				t.Errorf("hook %s printed %q with a foreign store", ev, out)
			}
			if ev == hook.PostToolUse {
				continue // a file no recall index names: the hook opens no store
			}
			after, _ := os.ReadFile(log)
			if added := string(after[len(before):]); !strings.Contains(added, "not a carryover store") {
				t.Errorf("hook %s logged nothing about the foreign store: %q", ev, added)
			}
		}
		_, errOut, code := runCLI(t, env, "", "uninstall", "--purge", "--yes")
		if code == 0 || !strings.Contains(errOut, "purge "+path) || !strings.Contains(errOut, "carryover deletes only its own store") {
			t.Errorf("uninstall --purge of a foreign store: exit %d\n%s", code, errOut)
		}
		checkUntouched(t, path, want)
	}
}

// TestPurgeDeletesOnlyCarryover: uninstall --purge deletes the store with
// its side files, the copies of it moved aside, the pending marks and the
// log, and nothing else beside them.
func TestPurgeDeletesOnlyCarryover(t *testing.T) {
	h := newHookEnv(t)
	if _, errOut, code := h.runCLI(t, "ingest", h.transcript); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	moved := h.db + ".corrupt-20260101T101500"
	keep := []string{h.db + ".bak", h.db + ".corrupt-notes", filepath.Join(filepath.Dir(h.db), "other.db")}
	movedFiles := append([]string{moved, moved + "-wal", moved + "-shm"}, storeopen.JournalFiles(moved)...)
	for _, p := range append(movedFiles, keep...) {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := spool.MarkPending(h.db, demoID); err != nil {
		t.Fatal(err)
	}
	// SessionStart(compact) leaves the session's recall index beside the store.
	h.run(t, "session-start", h.payloadAt(hook.SessionStart, h.transcript))
	if ix, _ := filepath.Glob(filepath.Join(hook.RecallIndexDir(h.db), "*.json")); len(ix) != 1 {
		t.Fatalf("recall indexes: %v", ix)
	}
	// It records its run and its injection in the store's journals.
	for _, journal := range []string{storeopen.JournalFiles(h.db)[0], storeopen.JournalFiles(h.db)[2]} {
		if _, err := os.Stat(journal); err != nil {
			t.Fatalf("no journal to purge: %v", err)
		}
	}
	if _, err := os.Stat(h.env["CARRYOVER_LOG"]); err != nil {
		t.Fatalf("no log to purge: %v", err)
	}
	// Answering no cancels, and is no error.
	if _, errOut, code := runCLI(t, h.env, "No\n", "uninstall", "--purge"); code != 0 || !strings.Contains(errOut, "purge cancelled: the archive is kept") {
		t.Errorf("purge answered no: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(h.db); err != nil {
		t.Fatalf("the store went without a yes: %v", err)
	}
	// What purge leaves in the state directory, it names.
	state := filepath.Join(h.dir, ".local", "state", "carryover")
	for _, d := range []string{"backups", "statusline"} {
		os.MkdirAll(filepath.Join(state, d), 0o700)
		os.WriteFile(filepath.Join(state, d, "x.json"), []byte("{}"), 0o600)
	}
	out, errOut, code := runCLI(t, h.env, " y\n", "uninstall", "--purge")
	if code != 0 {
		t.Fatalf("uninstall --purge: exit %d\n%s%s", code, out, errOut)
	}
	for _, d := range []string{"backups", "statusline"} {
		if _, err := os.Stat(filepath.Join(state, d, "x.json")); err != nil || !strings.Contains(out, "kept "+filepath.Join(state, d)+": ") {
			t.Errorf("purge of %s: %v\n%s", d, err, out)
		}
	}
	// The restore above journaled its run and its injection.
	runs, records := storeopen.JournalFiles(h.db)[0], storeopen.JournalFiles(h.db)[2]
	for _, p := range append(movedFiles, h.db, runs, records, spool.Dir(h.db), hook.RecallIndexDir(h.db), h.env["CARRYOVER_LOG"]) {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s not deleted", p)
		}
		if !strings.Contains(errOut, p) {
			t.Errorf("the confirmation does not list %s:\n%s", p, errOut)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("purge deleted %s, which carryover did not write", p)
		}
	}

	// A CARRYOVER_LOG that names some other file keeps it.
	h = newHookEnv(t)
	notLog := filepath.Join(h.dir, "notes.txt")
	os.WriteFile(notLog, []byte("my notes\n"), 0o600)
	h.env["CARRYOVER_LOG"] = notLog
	if _, errOut, code := h.runCLI(t, "ingest", h.transcript); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	if _, errOut, code := runCLI(t, h.env, "", "uninstall", "--purge", "--yes"); code != 0 {
		t.Fatalf("uninstall --purge: %s", errOut)
	}
	if _, err := os.Stat(notLog); err != nil {
		t.Errorf("purge deleted the file CARRYOVER_LOG names, which is not a log: %v", err)
	}
}

// unprivileged is who the permission tests run the binary as: this user,
// or when the tests run as root (which file modes do not stop) nobody.
const nobody = 65534

// userDir returns a directory the binary, run by asUser, owns.
func userDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asUser makes cmd run as an unprivileged user (see userDir) and returns it.
func asUser(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() == 0 {
		if err := os.Chmod(filepath.Dir(cmd.Path), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return cmd
}

// chownUser gives the files to the user asUser runs as.
func chownUser(t *testing.T, paths ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	for _, p := range paths {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadOnlyStore: a store its user made read-only (mode 0444), or one in
// a read-only directory, still answers every command that only reads,
// keeps its mode and gets no -wal or -shm (which would stay read-only and
// block later writes); a command that writes says why it cannot, and how
// to fix it.
func TestReadOnlyStore(t *testing.T) {
	bin := carryoverBinary(t)
	for _, readOnly := range []string{"file", "directory"} {
		t.Run(readOnly, func(t *testing.T) {
			home := userDir(t)
			storeDir := filepath.Join(home, "store")
			db := filepath.Join(storeDir, "carryover.db")
			transcript := filepath.Join(home, demoID+".jsonl")
			if err := os.WriteFile(transcript, demoSession, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := asUser(t, binCmd(bin, home, db, nil, "ingest", transcript)).CombinedOutput(); err != nil {
				t.Fatalf("ingest: %v\n%s", err, out)
			}
			lock := db
			mode := os.FileMode(0o444)
			if readOnly == "directory" {
				lock, mode = storeDir, 0o555
			}
			if err := os.Chmod(lock, mode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(storeDir, 0o700) })
			for _, args := range [][]string{
				{"search", "NewA4"}, {"sessions"}, {"show", demoID[:8]}, {"stats", "--global"}, {"status"}, {"audit"}, {"export", "--session", demoID[:8]},
			} {
				out, err := asUser(t, binCmd(bin, home, db, nil, args...)).CombinedOutput()
				if err != nil {
					t.Errorf("%s on a read-only %s: %v\n%s", args[0], readOnly, err, out)
				}
			}
			if fi, _ := os.Stat(lock); fi.Mode().Perm() != mode {
				t.Errorf("read-only %s: mode changed to %v", readOnly, fi.Mode().Perm())
			}
			for _, side := range []string{"-wal", "-shm"} {
				if _, err := os.Lstat(db + side); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("read-only %s: %s left behind", readOnly, filepath.Base(db+side))
				}
			}
			out, err := asUser(t, binCmd(bin, home, db, nil, "ingest", transcript)).CombinedOutput()
			if err == nil || !strings.Contains(string(out), "cannot write the store") || !strings.Contains(string(out), "hint: chmod u+w") {
				t.Errorf("ingest into a read-only %s: %v\n%s", readOnly, err, out)
			}
		})
	}
}

// TestStaleSideFiles: a read-only -shm left beside the store (a crashed or
// read-only process's) no longer makes the store unwritable for good: when
// this user owns it, the next write repairs it; when another user does,
// doctor says so and gives the exact fix, and commands that only read
// still work.
func TestStaleSideFiles(t *testing.T) {
	bin := carryoverBinary(t)
	home := userDir(t)
	db := filepath.Join(home, "store", "carryover.db")
	transcript := filepath.Join(home, demoID+".jsonl")
	if err := os.WriteFile(transcript, demoSession, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := asUser(t, binCmd(bin, home, db, nil, "ingest", transcript)).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	shm := db + "-shm"
	if err := os.WriteFile(shm, make([]byte, 32<<10), 0o400); err != nil {
		t.Fatal(err)
	}
	chownUser(t, shm)
	os.Chmod(shm, 0o400)
	note := asUser(t, binCmd(bin, home, db, nil, "note", "--session", demoID, "stale index repaired"))
	if out, err := note.CombinedOutput(); err != nil {
		t.Fatalf("a write with a stale read-only -shm of this user's: %v\n%s", err, out)
	}
	if os.Geteuid() != 0 {
		return // another user's file needs root to set up
	}
	if err := os.WriteFile(shm, make([]byte, 32<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(shm, 0, 0); err != nil {
		t.Fatal(err)
	}
	out, err := asUser(t, binCmd(bin, home, db, nil, "doctor")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "carryover.db-shm: a read-only file beside the store (mode 0644, owned by uid 0)") ||
		!strings.Contains(string(out), "hint: when no Claude Code session is running: rm "+shm) {
		t.Errorf("doctor with another user's -shm: %v\n%s", err, out)
	}
	if out, err := asUser(t, binCmd(bin, home, db, nil, "search", "NewA4")).CombinedOutput(); err != nil || !strings.Contains(string(out), "NewA4") {
		t.Errorf("search with another user's -shm: %v\n%s", err, out)
	}
	out, err = asUser(t, binCmd(bin, home, db, nil, "note", "--session", demoID, "x")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot write the store") || !strings.Contains(string(out), "rm "+shm) {
		t.Errorf("note with another user's -shm: %v\n%s", err, out)
	}
}
