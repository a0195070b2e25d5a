package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

func TestParseGetRef(t *testing.T) {
	for in, want := range map[string]retrieve.GetRef{
		"1234":             {ChunkID: 1234},
		"fa812bfe:120-180": {Session: "fa812bfe", From: 120, To: 180},
		"fa812bfe:120":     {Session: "fa812bfe", From: 120, To: 120},
		"fa812bfe:120-":    {Session: "fa812bfe", From: 120},
		"fa/agent-1:3-4":   {Session: "fa/agent-1", From: 3, To: 4},
	} {
		got, err := retrieve.ParseGetRef(in)
		if err != nil || got != want {
			t.Errorf("ParseGetRef(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-3", "abc", ":1-2", "fa812bfe:", "fa812bfe:b-c", "fa812bfe:9-3", "fa812bfe:0"} {
		if got, err := retrieve.ParseGetRef(bad); err == nil {
			t.Errorf("ParseGetRef(%q) = %+v, want an error", bad, got)
		}
	}
	for _, r := range [][2]int{{120, 180}, {120, 120}, {120, 0}} {
		from, to, err := retrieve.ParseLines(retrieve.FormatLines(r[0], r[1]))
		if err != nil || from != r[0] || to != r[1] {
			t.Errorf("ParseLines(FormatLines(%v)) = %d, %d, %v", r, from, to, err)
		}
	}
}

// TestGetReads: chunks by id, with the ids not found; a range's raw lines
// when the raw archive has them, else the chunks that cover it.
func TestGetReads(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := session("a1b2c3d4-0000-4000-8000-000000000001", "/p", 0)
	var chunks []carryover.Chunk
	for i := range 3 {
		chunks = append(chunks, carryover.Chunk{SessionID: s.ID, Project: s.Project, Seq: i, Turn: i,
			FirstLine: 10*i + 1, LastLine: 10*i + 10, Start: s.Started, End: s.Started,
			Text: fmt.Sprintf("chunk text %d", i), Hash: fmt.Sprintf("h%d", i)})
	}
	apply(t, st, s, chunks, nil)
	all, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
	if err != nil || len(all) != 3 {
		t.Fatalf("chunks: %v %d", err, len(all))
	}
	got, missing, err := retrieve.ChunksByID(ctx, st, []int64{all[2].ID, 99999})
	if err != nil || len(got) != 1 || got[0].Text != "chunk text 2" || len(missing) != 1 || missing[0] != 99999 {
		t.Errorf("ChunksByID: %v %v %v", got, missing, err)
	}
	if _, _, err := retrieve.ChunksByID(ctx, st, []int64{99999}); err == nil || !strings.Contains(err.Error(), "no archived chunk with id 99999") {
		t.Errorf("ChunksByID of a missing id: %v", err)
	}
	if _, _, err := retrieve.ChunksByID(ctx, st, make([]int64, retrieve.MaxChunkIDs+1)); err == nil {
		t.Error("ChunksByID of too many ids: no error")
	}

	// No raw lines archived: RawLines finds none, RangeChunks the chunks.
	lines, _, err := retrieve.RawLines(ctx, st, s.ID, 12, 25, 100)
	if err != nil || len(lines) != 0 {
		t.Fatalf("RawLines without a raw archive: %v %v", lines, err)
	}
	cover, err := retrieve.RangeChunks(ctx, st, s, 12, 25)
	if err != nil || len(cover) != 2 || cover[0].Turn != 1 || cover[1].Turn != 2 {
		t.Errorf("RangeChunks(12-25): %+v %v", cover, err)
	}
	if _, err := retrieve.RangeChunks(ctx, st, s, 500, 0); err == nil || !strings.Contains(err.Error(), "lines 500-") {
		t.Errorf("RangeChunks past the end: %v", err)
	}
}

// TestSearchBands: a strong match's best hit is strong, a weak match has
// no strong hit; every hit says where it is from and its snippet is its
// text without the header.
func TestSearchBands(t *testing.T) {
	st := trustFixture(t)
	for _, tc := range []struct {
		q    string
		weak bool
	}{
		{"KUBECONFIG make deploy-staging", false},
		{"rollback the helm chart of the staging grafana dashboards", true},
	} {
		resp := search(t, st, tc.q)
		if len(resp.Results) == 0 || resp.Weak != tc.weak {
			t.Fatalf("%q: %d results, weak %v", tc.q, len(resp.Results), resp.Weak)
		}
		strong := 0
		for _, r := range resp.Results {
			switch r.Band {
			case retrieve.BandStrong:
				strong++
			case retrieve.BandGood, retrieve.BandWeak:
			default:
				t.Errorf("%q: band %q", tc.q, r.Band)
			}
			if r.Project == "" || r.Time.IsZero() || !strings.HasSuffix(r.Text, "\n"+r.Snippet) || strings.HasPrefix(r.Snippet, "[session") {
				t.Errorf("%q: hit without provenance or with its header in the snippet: %+v", tc.q, r)
			}
		}
		if tc.weak != (strong == 0) || !tc.weak && resp.Results[0].Band != retrieve.BandStrong {
			t.Errorf("%q: weak %v but %d strong hits (first %s)", tc.q, tc.weak, strong, resp.Results[0].Band)
		}
	}
}
