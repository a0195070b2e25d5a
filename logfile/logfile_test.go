package logfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "carryover.log")
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), MaxBytes+1)
	if _, err := f.Write(big); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil || !Own(data) || bytes.Count(data, []byte("\n")) != 1 {
		t.Errorf("the log was not started again with its header alone: %q %v", data, err)
	}
	if old, err := os.ReadFile(path + ".1"); err != nil || !Own(old) || !bytes.HasSuffix(old, big) {
		t.Errorf("the previous log is not kept as .1: %d bytes, %v", len(old), err)
	}
}

func TestOpenRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "carryover.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := Open(link); err == nil {
		f.Close()
		t.Fatal("opened a log through a symlink")
	}
	if _, err := Open(""); err == nil {
		t.Error("opened a log with no path")
	}
}

// TestOpenLeavesForeignFiles: a file at the log's path that carryover did
// not start (CARRYOVER_LOG naming ~/.bashrc) is neither written, rotated
// nor renamed, however big it is; nor is a foreign file at the rotated
// copy's path replaced.
func TestOpenLeavesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"small": []byte("export PATH=$HOME/bin:$PATH\n"),
		"big":   append([]byte("# .bashrc\n"), bytes.Repeat([]byte("alias x=y\n"), MaxBytes/10+1)...),
		"empty": nil,
	} {
		path := filepath.Join(dir, name+".bashrc")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotOwn) {
			t.Errorf("%s: err %v, want ErrNotOwn", name, err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, content) {
			t.Errorf("%s: the file was changed or moved: %d bytes, %v", name, len(got), err)
		}
		if _, err := os.Lstat(path + ".1"); err == nil {
			t.Errorf("%s: rotated to .1", name)
		}
	}

	// A log carryover started before logs had a header is its own.
	legacy := filepath.Join(dir, "legacy.log")
	line := "time=2026-01-02T03:04:05.000Z level=INFO msg=hook event=Stop ms=12 pid=7\n"
	if err := os.WriteFile(legacy, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(legacy)
	if err != nil {
		t.Fatalf("a legacy log was refused: %v", err)
	}
	f.WriteString("time=x level=INFO msg=next\n")
	f.Close()

	// A full log whose .1 is not carryover's starts again; the .1 stays.
	path := filepath.Join(dir, "carryover.log")
	foreign := []byte("not a log\n")
	if err := os.WriteFile(path+".1", foreign, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte("y"), MaxBytes+1))
	f.Close()
	if f, err = Open(path); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := os.ReadFile(path + ".1"); !bytes.Equal(got, foreign) {
		t.Errorf("a foreign .1 was replaced: %d bytes", len(got))
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > 200 {
		t.Errorf("the full log was not started again: %v %v", fi, err)
	}
}
