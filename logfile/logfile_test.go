package logfile

import (
	"bytes"
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
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the log was not started again: %v %v", fi, err)
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != int64(len(big)) {
		t.Errorf("the previous log is not kept as .1: %v %v", fi, err)
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
