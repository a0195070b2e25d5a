package retrieve_test

import (
	"context"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

func TestWithKind(t *testing.T) {
	st := openStore(t)
	s := session("cccccccc-kind", "/proj", 0)
	apply(t, st, s, nil, []carryover.Item{
		{ChunkSeq: 0, Kind: carryover.KindCommand, Text: "widget build --release", Line: 10},
		{ChunkSeq: 1, Kind: carryover.KindError, Text: "widget build failed: missing icon", Line: 20},
	})
	ctx := context.Background()
	q := carryover.Query{Text: "widget build", Project: "/proj", Limit: 5}
	all, err := st.Search(ctx, q)
	if err != nil || len(all) != 2 {
		t.Fatalf("unfiltered: %d hits, %v", len(all), err)
	}
	for kind, seq := range map[carryover.ItemKind]int{carryover.KindCommand: 0, carryover.KindError: 1} {
		hits, err := retrieve.WithKind(st, kind).Search(ctx, q)
		if err != nil || len(hits) != 1 || hits[0].Chunk.Seq != seq {
			t.Errorf("kind %s: %+v, %v", kind, hits, err)
		}
	}
	if hits, err := retrieve.WithKind(st, carryover.KindDecision).Search(ctx, q); err != nil || len(hits) != 0 {
		t.Errorf("kind decision: %d hits, %v", len(hits), err)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-01-02T15:04:05Z": time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		"2026-01-02":           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"24h":                  now.Add(-24 * time.Hour),
		" 90m ":                now.Add(-90 * time.Minute),
	} {
		got, err := retrieve.ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "-3d", "0h", "NaNd", "1e9d"} {
		if _, err := retrieve.ParseSince(in, now); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
