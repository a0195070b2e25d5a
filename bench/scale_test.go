package bench

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/storetest"
)

// TestScaleSmall generates a small archive and checks the shape of what
// bench scale reports: every measurement ran, from a separate process of
// the binary.
func TestScaleSmall(t *testing.T) {
	src := sharedDir(t, "data", "transcripts", "spotter")
	exe := carryoverBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	res, err := Scale(context.Background(), ScaleOptions{
		Plan: ScalePlan{Chunks: 2000, PerSession: 500, Projects: 4, Batch: 500},
		Dir:  dir, Transcripts: src, Workers: 2, Runs: 1, Exe: exe, Log: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != 2000 || res.Sessions != 4 || res.Projects != 4 {
		t.Errorf("archive %d chunks, %d sessions, %d projects; want 2000, 4, 4", res.Chunks, res.Sessions, res.Projects)
	}
	if res.IngestS <= 0 || res.ChunksPerS <= 0 || res.StoreMB <= 0 || res.Vocabulary < 100 {
		t.Errorf("ingest %.2f s, %.0f chunks/s, store %.1f MB, vocabulary %d", res.IngestS, res.ChunksPerS, res.StoreMB, res.Vocabulary)
	}
	want := []string{"version"}
	for _, p := range scalePrompts {
		want = append(want, p.name)
	}
	for _, q := range scaleQueries {
		want = append(want, q.name)
	}
	if len(res.Measurements) != len(want) {
		t.Fatalf("%d measurements, want %d: %+v", len(res.Measurements), len(want), res.Measurements)
	}
	for i, r := range res.Measurements {
		if r.Name != want[i] || r.Runs != 1 || r.MedianMS <= 0 || r.MaxRSSMB <= 0 {
			t.Errorf("measurement %d: %+v, want %q with a time and an RSS", i, r, want[i])
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("store directory left behind without Keep: %v", err)
	}
}

// TestScaleServer generates the archive on a PostgreSQL server and
// measures the hooks and searches there: the run reports the server's
// store, refuses a database that holds sessions, and with Keep measures
// it again without generating.
func TestScaleServer(t *testing.T) {
	dsn := storetest.PostgresDatabase(t)
	src := sharedDir(t, "data", "transcripts", "spotter")
	exe := carryoverBinary(t)
	opt := ScaleOptions{
		Plan:        ScalePlan{Chunks: 1000, PerSession: 500, Projects: 2, Batch: 250},
		Transcripts: src, Workers: 2, Runs: 1, Exe: exe, Log: os.Stderr, DatabaseURL: dsn,
	}
	res, err := Scale(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Store != "postgresql" || res.Sessions != 2 || res.IngestS <= 0 || res.StoreMB <= 0 {
		t.Errorf("store %q, %d sessions, ingest %.2f s, %.1f MB; want postgresql, 2 sessions, a time and a size",
			res.Store, res.Sessions, res.IngestS, res.StoreMB)
	}
	if len(res.Measurements) != 1+len(scalePrompts)+len(scaleQueries) {
		t.Fatalf("%d measurements: %+v", len(res.Measurements), res.Measurements)
	}
	for _, r := range res.Measurements {
		if r.MedianMS <= 0 {
			t.Errorf("measurement %+v has no time", r)
		}
	}
	if _, err := Scale(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "holds sessions") {
		t.Fatalf("a database holding sessions: %v, want a refusal", err)
	}
	opt.Keep = true
	res, err = Scale(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.IngestS != 0 || len(res.Measurements) != 1+len(scalePrompts)+len(scaleQueries) {
		t.Errorf("with Keep: ingest %.2f s, %d measurements; want the archive measured again, not generated", res.IngestS, len(res.Measurements))
	}
}

// TestScaleCatchUp: a store kept from an older carryover is migrated and
// caught up before it is measured, its chunks put into their projects'
// spans, as the hooks' next batches would.
func TestScaleCatchUp(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "scale.db")
	st, err := storeopen.Local(ctx, db, storeopen.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []carryover.Batch{storetest.Batch("a", "/p", 0, 5), storetest.Batch("b", "/q", 0, 5)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// As schema version 13 left it.
	if _, err := raw.Exec(`DROP TRIGGER chunks_spans_au; DROP TRIGGER chunks_spans_ad; DROP TABLE chunk_spans; DELETE FROM meta WHERE key = 'spans_below'; PRAGMA user_version = 13`); err != nil {
		t.Fatal(err)
	}
	if err := CatchUp(db); err != nil {
		t.Fatal(err)
	}
	var below, spans int
	if err := raw.QueryRow(`SELECT (SELECT value FROM meta WHERE key = 'spans_below'), (SELECT count(*) FROM chunk_spans)`).Scan(&below, &spans); err != nil {
		t.Fatal(err)
	}
	if below != 1 || spans != 2 {
		t.Fatalf("after the catch-up: spans_below %d, %d spans; want 1 and 2", below, spans)
	}
}
