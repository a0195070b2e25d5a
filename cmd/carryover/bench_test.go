package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
)

// ingestInto archives the transcript at path as session sid into the
// store db, the directory holding it standing for the project.
func ingestInto(ctx context.Context, db, path, sid string) error {
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		return err
	}
	_, err = (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{SessionID: sid, Project: filepath.Dir(path)})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// TestBenchUsage checks the bench command's own errors: no benchmark, an
// unknown one, bad flags and missing data, each before any work is done.
func TestBenchUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench"}, 2, "give needed, jit, survival"},
		{[]string{"bench", "speed"}, 2, `unknown benchmark "speed"`},
		{[]string{"bench", "latency", "--runs", "0"}, 2, "--runs must be at least 1"},
		{[]string{"bench", "survival", "--budget", "-1"}, 2, "--budget and --k must be positive"},
		{[]string{"bench", "survival", "--items", missing}, 1, "hint: pass --items"},
		{[]string{"bench", "recall", "--items", missing}, 1, "hint: pass --items"},
		{[]string{"bench", "locomo", "--data", missing}, 1, "hint: pass --data"},
		{[]string{"bench", "scale", "--per-session", "1"}, 2, "--per-session at least 2"},
	} {
		var out, errb bytes.Buffer
		a := newApp(bytes.NewReader(nil), &out, &errb, func(k string) string {
			if k == "CARRYOVER_LOG" {
				return filepath.Join(t.TempDir(), "log")
			}
			return os.Getenv(k)
		})
		if code := a.run(context.Background(), c.args); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}
