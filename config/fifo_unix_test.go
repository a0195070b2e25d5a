//go:build unix

package config

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFile: a FIFO in place of the project's file is refused
// without waiting for a writer.
func TestSpecialFile(t *testing.T) {
	s := newSetup(t, "", "")
	if err := syscall.Mkfifo(s.projectFile(), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan Config, 1)
	go func() {
		c, _ := Load(Options{Env: s.Env(), ProjectDir: s.project})
		done <- c
	}()
	select {
	case c := <-done:
		if got := problems(c); !strings.Contains(got, s.projectFile()+": not a regular file; the file is ignored") {
			t.Errorf("problems:\n%s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
