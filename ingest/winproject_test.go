package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
)

// TestWindowsProject: a session that ran in c:\Users\me\shop is archived
// under C:\Users\me\shop, on any system, and a transcript of the same
// Claude Code folder that names no directory joins it there.
func TestWindowsProject(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	folder := filepath.Join(t.TempDir(), "projects", "c--Users-me-shop")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	const other = "99999999-8888-4777-8666-555555555555"
	withCwd := strings.ReplaceAll(strings.Join(synth(2), "\n"), `"cwd":"/home/dev/proj"`, `"cwd":"c:\\Users\\me\\shop"`)
	noCwd := strings.ReplaceAll(strings.ReplaceAll(strings.Join(synth(2), "\n"), `"cwd":"/home/dev/proj",`, ""), sid, other)
	if strings.Contains(noCwd, "cwd") || !strings.Contains(withCwd, `c:\\Users`) {
		t.Fatal("the synthetic transcript's cwd was not replaced")
	}
	for id, text := range map[string]string{sid: withCwd, other: noCwd} {
		if err := os.WriteFile(filepath.Join(folder, id+".jsonl"), []byte(text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const want = `C:\Users\me\shop`
	for _, id := range []string{sid, other} {
		rep, err := (&ingest.Archiver{Store: st}).File(ctx, filepath.Join(folder, id+".jsonl"), ingest.Options{})
		if err != nil || !rep.Complete {
			t.Fatalf("ingest %s: %+v, %v", id, rep, err)
		}
		s, err := st.Session(ctx, id)
		if err != nil || s.Project != want {
			t.Errorf("session %s: project %q (%v), want %q", id, s.Project, err, want)
		}
	}
}
