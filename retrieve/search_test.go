package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

const (
	archiveSession = "a4c41e00-0000-4000-8000-000000000001"
	otherSession   = "a4c41e00-0000-4000-8000-000000000002"
	archiveProject = "/src/spotter"
)

// archiveFixture stores an archived session (windows 0 and 1, now in
// window 2) and another session of the project, with long chunks whose
// interesting detail sits in the middle.
func archiveFixture(tb testing.TB) carryover.Store {
	tb.Helper()
	st := openStore(tb)
	filler := func(n int, topic string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s line %d: reading the module and checking the layout of the page\n", topic, i)
		}
		return b.String()
	}
	s := session(archiveSession, archiveProject, 2)
	chunks := []carryover.Chunk{
		{Seq: 0, Turn: 0, Window: 0, FirstLine: 990, LastLine: 1004,
			Text: filler(20, "setup") + "Edit config/test.exs:\nconfig :spotter, SpotterWeb.Endpoint,\n  http: [ip: {127, 0, 0, 1}, port: 4002],\n  secret_key_base: String.duplicate(\"test_secret_key_base_\", 4),\n  server: false\n" + filler(20, "after")},
		{Seq: 1, Turn: 0, Window: 0, FirstLine: 1005, LastLine: 1010,
			Text: filler(10, "tests") + "mix test test/spotter_web/live/project_review_live_test.exs\n** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint\n" + filler(10, "more")},
		{Seq: 2, Turn: 1, Window: 1, FirstLine: 1200, LastLine: 1210,
			Text: filler(12, "annotations") + "create index annotations_session_id_state_index on annotations (session_id, state)\n" + filler(12, "migrate")},
		// Same text as Seq 2: an equal chunk of another step.
		{Seq: 3, Turn: 1, Window: 1, FirstLine: 1211, LastLine: 1220,
			Text: filler(12, "annotations") + "create index annotations_session_id_state_index on annotations (session_id, state)\n" + filler(12, "migrate") + " "},
		// The current window: the model sees it.
		{Seq: 4, Turn: 2, Window: 2, FirstLine: 1400, LastLine: 1410,
			Text: "current window: the endpoint port 4002 is set in config/test.exs"},
	}
	for i := range chunks {
		chunks[i].SessionID, chunks[i].Project = s.ID, s.Project
		chunks[i].Start, chunks[i].End = s.Started, s.Started
		chunks[i].Hash = fmt.Sprintf("%s-%d", s.ID, i)
	}
	apply(tb, st, s, chunks, nil)

	o := session(otherSession, archiveProject, 0)
	apply(tb, st, o, []carryover.Chunk{{
		SessionID: o.ID, Project: o.Project, Seq: 0, FirstLine: 10, LastLine: 20, Start: o.Started, End: o.Started,
		Text: filler(5, "deploy") + "git push --set-upstream origin spotter-gqc\nBranch 'spotter-gqc' set up to track 'origin/spotter-gqc'.\n",
		Hash: "other-0",
	}}, nil)
	return st
}

func TestSearchBudgetAndSnippets(t *testing.T) {
	st := archiveFixture(t)
	for _, budget := range []int{300, 700, 4000} {
		resp, err := retrieve.Search(context.Background(), st, retrieve.SearchRequest{
			Query:  carryover.Query{Text: "secret_key_base SpotterWeb.Endpoint", Project: archiveProject},
			Budget: budget,
		})
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		rs := resp.Results
		if len(rs) == 0 {
			t.Fatalf("budget %d: no result", budget)
		}
		total := 0
		for i, r := range rs {
			total += len(r.Text)
			if !strings.HasPrefix(r.Text, fmt.Sprintf("[session %s, turn %d, L%d-%d]\n", r.SessionID[:8], r.Turn, r.Lines[0], r.Lines[1])) {
				t.Errorf("budget %d: result %d lacks its provenance header: %q", budget, i, r.Text)
			}
			// The store may rank chunks matching only part of the query;
			// each snippet must show the part that matched.
			lower := strings.ToLower(r.Text)
			if !strings.Contains(lower, "secret_key_base") && !strings.Contains(lower, "spotter") && !strings.Contains(lower, "endpoint") {
				t.Errorf("budget %d: result %d snippet misses every query term:\n%s", budget, i, r.Text)
			}
			if chunkHas(t, st, r.ChunkID, "no :secret_key_base configuration") && !strings.Contains(r.Text, "secret_key_base") {
				t.Errorf("budget %d: result %d snippet misses the densest match:\n%s", budget, i, r.Text)
			}
			if i > 0 && r.Score > rs[i-1].Score {
				t.Errorf("budget %d: results out of rank order", budget)
			}
		}
		if total > budget {
			t.Errorf("budget %d: results hold %d chars", budget, total)
		}
		t.Logf("budget %d: %d results, %d chars; first:\n%s", budget, len(rs), total, rs[0].Text)
	}
}

func TestSearchDedupsEqualTexts(t *testing.T) {
	st := archiveFixture(t)
	resp, err := retrieve.Search(context.Background(), st, retrieve.SearchRequest{
		Query: carryover.Query{Text: "annotations_session_id_state_index", SessionID: archiveSession},
	})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	rs := resp.Results
	if len(rs) != 1 {
		t.Fatalf("got %d results, want the two equal chunks once", len(rs))
	}
	if !strings.Contains(rs[0].Text, "create index annotations_session_id_state_index") {
		t.Errorf("snippet misses the matching line:\n%s", rs[0].Text)
	}
}

func TestSearchEmptyQuery(t *testing.T) {
	st := archiveFixture(t)
	resp, err := retrieve.Search(context.Background(), st, retrieve.SearchRequest{Query: carryover.Query{Text: "  "}})
	if err != nil || len(resp.Results) != 0 || resp.Weak {
		t.Errorf("empty query: %d results, weak %v, err %v", len(resp.Results), resp.Weak, err)
	}
}

// chunkHas reports whether the stored chunk's text contains s.
func chunkHas(tb testing.TB, st carryover.Store, id int64, s string) bool {
	tb.Helper()
	for _, sess := range []string{archiveSession, otherSession} {
		cs, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: sess, Turn: -1, IDs: []int64{id}})
		if err != nil {
			tb.Fatal(err)
		}
		if len(cs) == 1 {
			return strings.Contains(cs[0].Text, s)
		}
	}
	tb.Fatalf("no chunk %d", id)
	return false
}
