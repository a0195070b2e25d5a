package retrieve_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
)

const (
	trustSession = "7a057000-0000-4000-8000-000000000001"
	trustOther   = "7a057000-0000-4000-8000-000000000002"
	trustProject = "/src/relay"
)

// trustFixture archives a session (now in window 1) whose window 0 holds
// an interruption, an acknowledgement and boilerplate an older chunker
// kept, a websocket test log split over four chunks, a staging deploy that
// failed twice before it worked, and other work on the websocket.
func trustFixture(tb testing.TB) carryover.Store {
	tb.Helper()
	st := openStore(tb)
	s := session(trustSession, trustProject, 1)
	var log strings.Builder
	for i := range 12 {
		fmt.Fprintf(&log, "=== RUN   TestWebsocketReconnect/flaky_%d\n--- PASS: TestWebsocketReconnect/flaky_%d (0.%02ds)\n", i, i, i)
	}
	head := "$ go test -v -run TestWebsocketReconnect ./relay/ws/..."
	failed := "$ make deploy-staging 2>&1\n→ exit 2\nerror: deploy to staging failed: KUBECONFIG is not set for the staging deploy target"
	chunks := []carryover.Chunk{
		{Turn: 0, FirstLine: 10, LastLine: 12, Text: "User: The websocket reconnect test is flaky, please look.\nAssistant: Looking at the websocket reconnect code in relay/ws/conn.go.\nRead relay/ws/conn.go\n→ func (c *Conn) reconnect() error {"},
		{Turn: 0, FirstLine: 13, LastLine: 13, Text: "User: [Request interrupted by user for tool use]"},
		{Turn: 0, FirstLine: 14, LastLine: 14, Text: "Assistant: OK, let me check."},
		{Turn: 0, FirstLine: 15, LastLine: 15, Text: "User: <system-reminder>\nThe user opened the file relay/ws/conn.go in the IDE. This may or may not be related to the current task.\n</system-reminder>"},
		// A test log split over four chunks: one part, lines 20-21.
		{Turn: 1, FirstLine: 18, LastLine: 21, Text: "User: Run the websocket reconnect tests verbosely\n" + head + "\n→ ok\n" + log.String()},
		{Turn: 1, FirstLine: 20, LastLine: 21, Text: "(cont.) " + head + "\n" + log.String()},
		{Turn: 1, FirstLine: 20, LastLine: 21, Text: "(cont.) " + head + "\n" + log.String()},
		{Turn: 1, FirstLine: 20, LastLine: 21, Text: "(cont.) " + head + "\n" + log.String() + "ok  \trelay/ws\t1.2s"},
		// Other work on the reconnect, in other turns.
		{Turn: 2, FirstLine: 30, LastLine: 31, Text: "Assistant: The websocket reconnect backoff doubles up to 30s.\nEdit relay/ws/conn.go:\n+ backoff = min(2*backoff, 30*time.Second)"},
		{Turn: 3, FirstLine: 40, LastLine: 41, Text: "Assistant: TestWebsocketReconnect now waits for the reconnect event instead of sleeping."},
		{Turn: 4, FirstLine: 50, LastLine: 51, Text: "Assistant: The flaky websocket test was a race between reconnect and close."},
		// The staging deploy: two failures, then the command that worked.
		{Turn: 5, FirstLine: 60, LastLine: 62, Text: "User: deploy the relay to staging\n" + failed},
		{Turn: 5, FirstLine: 63, LastLine: 65, Text: "Assistant: Retrying the staging deploy.\n" + failed},
		{Turn: 5, FirstLine: 66, LastLine: 68, Text: "$ KUBECONFIG=~/.kube/relay make deploy-staging\n→ ok\nrelay deployed"},
	}
	for i := range chunks {
		c := &chunks[i]
		c.SessionID, c.Project, c.Seq, c.Window = s.ID, s.Project, i, 0
		c.Start, c.End = s.Started, s.Started
		c.Hash = fmt.Sprintf("trust-%d", i)
	}
	apply(tb, st, s, chunks, nil)

	// Another session of the project: routine work in plain words.
	o := session(trustOther, trustProject, 0)
	apply(tb, st, o, []carryover.Chunk{{
		SessionID: o.ID, Project: o.Project, FirstLine: 5, LastLine: 9, Start: o.Started, End: o.Started, Hash: "trust-other-0",
		Text: "Assistant: All tests pass and linting is clean. Let me add the changes and commit.\n$ git add -A && git commit -m 'relay: retry the reconnect'\n→ ok",
	}}, nil)
	return st
}

func search(tb testing.TB, st carryover.Store, text string) retrieve.SearchResponse {
	tb.Helper()
	resp, err := retrieve.Search(context.Background(), st, retrieve.SearchRequest{
		Query: carryover.Query{Text: text, Project: trustProject, Limit: 8}, Budget: 1 << 20,
	})
	if err != nil {
		tb.Fatalf("search %q: %v", text, err)
	}
	return resp
}

// rawTop returns the chunk texts the store itself ranks first for a query:
// what the rules under test change.
func rawTop(tb testing.TB, st carryover.Store, text string, k int) []string {
	tb.Helper()
	hits, err := st.Search(context.Background(), carryover.Query{Text: text, Project: trustProject, Limit: k})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Chunk.Text)
	}
	return out
}

func TestSearchDropsNoise(t *testing.T) {
	st := trustFixture(t)
	const q = "user request tool check"
	raw := rawTop(t, st, q, 8)
	if !slices.ContainsFunc(raw, func(s string) bool { return strings.HasPrefix(s, "User: [Request interrupted") }) {
		t.Fatalf("precondition: the store ranks the interruption in its top 8 for %q: %q", q, raw)
	}
	for _, q := range []string{q, "the user opened conn.go in the IDE", "let me check"} {
		for _, r := range search(t, st, q).Results {
			body := r.Text[strings.IndexByte(r.Text, '\n')+1:]
			if strings.HasPrefix(body, "User: [Request interrupted") || body == "Assistant: OK, let me check." || strings.Contains(body, "system-reminder") {
				t.Errorf("%q: noise ranked:\n%s", q, r.Text)
			}
		}
	}
}

func TestSearchCapsOneDocument(t *testing.T) {
	st := trustFixture(t)
	const q = "TestWebsocketReconnect flaky"
	pieces := func(texts []string) int {
		n := 0
		for _, s := range texts {
			if strings.Contains(s, "--- PASS: TestWebsocketReconnect/flaky_11") {
				n++
			}
		}
		return n
	}
	if n := pieces(rawTop(t, st, q, 8)); n < 3 {
		t.Fatalf("precondition: the store ranks %d pieces of the test log in its top 8, want 3 or more", n)
	}
	resp := search(t, st, q)
	var texts []string
	for _, r := range resp.Results {
		texts = append(texts, r.Text)
	}
	if n := pieces(texts); n != 2 {
		t.Errorf("%d pieces of one test log in the top 8, want 2:\n%s", n, strings.Join(texts, "\n---\n"))
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "race between reconnect and close") }) {
		t.Errorf("the slots the log left are not given to the other hits:\n%s", strings.Join(texts, "\n---\n"))
	}
}

func TestSearchOutcomeByIntent(t *testing.T) {
	st := trustFixture(t)
	first := func(q string) string {
		rs := search(t, st, q).Results
		if len(rs) == 0 {
			t.Fatalf("%q: no results", q)
		}
		return rs[0].Text
	}
	// The failures say "staging deploy" more often: the store ranks them
	// first.
	const howTo = "how do I deploy to staging"
	if raw := rawTop(t, st, howTo, 8); !strings.Contains(raw[0], "→ exit 2") {
		t.Fatalf("precondition: the store ranks a failure first for %q: %q", howTo, raw[0])
	}
	for _, q := range []string{howTo, "which command deploys staging"} {
		if got := first(q); !strings.Contains(got, "make deploy-staging\n→ ok") {
			t.Errorf("%q: the run that worked is not first:\n%s", q, got)
		}
	}
	for _, q := range []string{"why does the staging deploy fail", "error: deploy to staging failed"} {
		if got := first(q); !strings.Contains(got, "→ exit 2") {
			t.Errorf("%q: a failure is not first:\n%s", q, got)
		}
	}
}

func TestSearchWeak(t *testing.T) {
	st := trustFixture(t)
	for _, tc := range []struct {
		q    string
		weak bool
	}{
		{"KUBECONFIG make deploy-staging", false},
		{"websocket reconnect backoff", false},
		// Only "staging" is in the archive.
		{"rollback the helm chart of the staging grafana dashboards", true},
	} {
		resp := search(t, st, tc.q)
		if len(resp.Results) == 0 {
			t.Fatalf("%q: no results", tc.q)
		}
		if resp.Weak != tc.weak {
			t.Errorf("%q: Weak = %v, want %v (best: %s)", tc.q, resp.Weak, tc.weak, resp.Results[0].Text)
		}
	}
	if resp := search(t, st, "sourdough"); len(resp.Results) != 0 || resp.Weak {
		t.Errorf("no match at all: %d results, Weak %v; want none, and no weak match", len(resp.Results), resp.Weak)
	}
}

func explain(tb testing.TB, st carryover.Store, req retrieve.RecallRequest) retrieve.RecallExplanation {
	tb.Helper()
	ex, err := retrieve.ExplainRecall(context.Background(), st, req)
	if err != nil {
		tb.Fatalf("recall %q: %v", req.Prompt, err)
	}
	return ex
}

func TestRecallSkipsNoise(t *testing.T) {
	st := trustFixture(t)
	ex := explain(t, st, retrieve.RecallRequest{SessionID: trustSession, Project: trustProject, Window: 1,
		Prompt: "the request was interrupted by the user for tool use"})
	noise := false
	for _, c := range ex.Candidates {
		if strings.HasPrefix(c.Hit.Chunk.Text, "User: [Request interrupted") {
			noise = true
			if c.Injected || !strings.HasPrefix(c.Why, "noise") {
				t.Errorf("the interruption: injected %v, why %q", c.Injected, c.Why)
			}
		}
	}
	if !noise {
		t.Fatalf("precondition: the interruption is a candidate; candidates: %+v", ex.Candidates)
	}
	if strings.Contains(ex.Block.Text, "[Request interrupted") {
		t.Errorf("recall injected the interruption:\n%s", ex.Block.Text)
	}
}

func TestRecallCapsOneDocument(t *testing.T) {
	st := trustFixture(t)
	ex := explain(t, st, retrieve.RecallRequest{SessionID: trustSession, Project: trustProject, Window: 1,
		Prompt: "TestWebsocketReconnect flaky_11 PASS"})
	if n := strings.Count(ex.Block.Text, "flaky_11 (0.11s)"); n != 2 {
		t.Errorf("%d pieces of one log injected, want 2:\n%s", n, ex.Block.Text)
	}
	capped := slices.ContainsFunc(ex.Candidates, func(c retrieve.RecallCandidate) bool { return strings.Contains(c.Why, "split document") })
	if !capped {
		t.Errorf("no candidate left out as a further piece of the log: %+v", ex.Candidates)
	}
}

// TestRecallFirstPrompt: on a new session's first prompt, another
// session's chunk that shares only plain words with it is not injected;
// the same prompt later in a session is, and so is a first prompt that
// shares an identifier with it.
func TestRecallFirstPrompt(t *testing.T) {
	st := trustFixture(t)
	const plain = "run the tests and linting, then add and commit the changes and open a pull request"
	ex := explain(t, st, retrieve.RecallRequest{SessionID: "7a057000-0000-4000-8000-00000000000f", Project: trustProject, Prompt: plain})
	if ex.Block.Text != "" {
		t.Errorf("first prompt %q injected:\n%s", plain, ex.Block.Text)
	}
	i := slices.IndexFunc(ex.Candidates, func(c retrieve.RecallCandidate) bool { return c.Hit.Chunk.SessionID == trustOther })
	if i < 0 {
		t.Fatalf("precondition: the other session is a candidate: %+v", ex.Candidates)
	}
	if c := ex.Candidates[i]; c.Coverage < retrieve.RecallMinCoverage || !strings.Contains(c.Why, "first prompt") {
		t.Errorf("other session's chunk: coverage %.2f, why %q; want above the usual bar and left out as a first prompt's", c.Coverage, c.Why)
	}
	// The same words later in this session: the bar is the usual one.
	later := explain(t, st, retrieve.RecallRequest{SessionID: trustSession, Project: trustProject, Window: 1, Prompt: plain})
	if !strings.Contains(later.Block.Text, "git commit -m 'relay: retry the reconnect'") {
		t.Errorf("later prompt %q did not recall the other session:\n%s", plain, later.Block.Text)
	}
	// A caller that looked the session up says so, and the recall does
	// not ask the store again (this one fails when asked).
	noLookup := sessionsFail{st}
	for _, isNew := range []bool{true, false} {
		ex := explain(t, noLookup, retrieve.RecallRequest{SessionID: "7a057000-0000-4000-8000-00000000000f", Project: trustProject,
			Prompt: plain, NewSession: &isNew})
		if got := ex.Block.Text != ""; got == isNew {
			t.Errorf("first prompt, NewSession %v: injected %v:\n%s", isNew, got, ex.Block.Text)
		}
	}
	// An identifier shared with the other session lets it through.
	withID := explain(t, st, retrieve.RecallRequest{SessionID: "7a057000-0000-4000-8000-00000000000f", Project: trustProject,
		Prompt: "add and commit the changes as relay: retry the reconnect with git add -A"})
	if !strings.Contains(withID.Block.Text, "git commit -m 'relay: retry the reconnect'") {
		t.Errorf("first prompt with a flag of the other session's command did not recall it:\n%s", withID.Block.Text)
	}
}

// TestExplainRecall: the explanation holds the block Recall returns, the
// thresholds, and a reason for every candidate left out.
func TestExplainRecall(t *testing.T) {
	st := trustFixture(t)
	req := retrieve.RecallRequest{SessionID: trustSession, Project: trustProject, Window: 1, Prompt: "how do I deploy the relay to staging with KUBECONFIG"}
	ex := explain(t, st, req)
	blk, err := retrieve.Recall(context.Background(), st, req)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Block.Text == "" || ex.Block.Text != blk.Text || !slices.Equal(ex.Block.ChunkIDs, blk.ChunkIDs) {
		t.Fatalf("explanation's block differs from Recall's:\n%s\n---\n%s", ex.Block.Text, blk.Text)
	}
	if ex.MinScore != retrieve.RecallMinScore || ex.MinCoverage != retrieve.RecallMinCoverage || ex.Query == "" {
		t.Errorf("thresholds %v/%v, query %q", ex.MinScore, ex.MinCoverage, ex.Query)
	}
	injected := 0
	for _, c := range ex.Candidates {
		if c.Injected {
			injected++
			if c.Why != "" {
				t.Errorf("injected chunk %d has a reason to be left out: %q", c.Hit.Chunk.ID, c.Why)
			}
			continue
		}
		if c.Why == "" {
			t.Errorf("chunk %d left out without a reason", c.Hit.Chunk.ID)
		}
	}
	if injected != len(blk.ChunkIDs) {
		t.Errorf("%d candidates marked injected, the block holds %d", injected, len(blk.ChunkIDs))
	}
	if !strings.Contains(blk.Text, "KUBECONFIG=~/.kube/relay make deploy-staging") {
		t.Errorf("the run that worked is not recalled:\n%s", blk.Text)
	}
	if skip := explain(t, st, retrieve.RecallRequest{SessionID: trustSession, Project: trustProject, Window: 1, Prompt: "/compact"}); skip.Skipped == "" || len(skip.Candidates) != 0 {
		t.Errorf("a slash command: skipped %q, %d candidates", skip.Skipped, len(skip.Candidates))
	}
}

// trustQueries are questions about the claude-code-log sessions, each with
// a text its answer holds.
var trustQueries = []struct{ query, want string }{
	{"how do I run the tests locally with act for the GitHub Action", ".github/workflows/ci.yml"},
	{"which pyright type errors were fixed in converter.py", "reportUnknown"},
	{"why does the combined transcript link test fail", "FAILED test/test_combined_transcript_link.py"},
	{"Do we even need _generate_html_with_combined_link", "def _generate_html_with_combined_link"},
	{"what did the user interrupt while the tool was writing test_combined_link.py", "Write test_combined_link.py"},
	{"which command reinstalls the coderabbit review extractor with uv tool install", "uv tool uninstall coderabbit-review-extractor"},
	{"why did the user reject the tool use that removed the Python cache", "The user doesn't want to proceed with this tool use"},
	{"how can I make coderabbit-review-helper installable as a library with uv", "pyproject.toml"},
	{"move tokenizer.css and tokenizer.html into their own git submodule repo", "submodule"},
	{"vercel.json redirect for /tokenizer.html", "vercel.json"},
	{"set up rewrites for the tokenizer JS and CSS instead of basePath", "rewrites"},
	{"Loading module from tokenizer.js was blocked because of a disallowed MIME type", "disallowed MIME type"},
	{"support nested tar.gz archives embedded inside a zip file", "_process_nested_tar"},
	{"BadZipFile is silently ignored with pass", "BadZipFile"},
	{"report corrupted nested archives in the manifest as !CORRUPTED", "!CORRUPTED"},
	{"the user asked to commit the tar support changes first, then proceed with the new plan", "first commit the changes related to the previous task"},
	{"round 2 dispatched to alice, bob and carol", "Round 2 dispatched"},
	{"research Steve Yegge's Beads system for the teammates experiment", "steveyegge/beads"},
	{"how does Claude Code plan mode approval with ExitPlanMode work", "ExitPlanMode"},
	{"the session navigation section was lost from the combined transcript", "session navigation"},
}

// TestTrustRealSessions searches the real claude-code-log sessions,
// archived as `carryover ingest` does, with the queries of trustQueries:
// no interrupted request, acknowledgement or boilerplate chunk is among
// any top 8, and each top 8 holds the answer. Some of these queries rank
// an interruption in the store's own top 8: the rules are what keep it
// out.
func TestTrustRealSessions(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "data", "transcripts", "claude-code-log")
	ctx := context.Background()
	st := openStore(t)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".jsonl" {
			return err
		}
		_, err = (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// An independent reading of noise: what the chunker renders for an
	// interruption, and what Claude Code wraps boilerplate in.
	noise := func(text string) bool {
		body := strings.TrimSpace(text)
		return strings.HasPrefix(body, "User: [Request interrupted") && !strings.Contains(body, "\n") ||
			strings.Contains(body, "<system-reminder>") || strings.Contains(body, "<command-name>") ||
			strings.Contains(body, "<local-command-") || strings.Contains(body, "Caveat: The messages below were generated")
	}
	rawNoise := 0
	for _, tc := range trustQueries {
		q := carryover.Query{Text: tc.query, Limit: 8}
		raw, err := st.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range raw[:min(8, len(raw))] {
			if noise(h.Chunk.Text) {
				rawNoise++
			}
		}
		resp, err := retrieve.Search(ctx, st, retrieve.SearchRequest{Query: q, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i, r := range resp.Results {
			cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: r.SessionID, Turn: -1, IDs: []int64{r.ChunkID}})
			if err != nil || len(cs) != 1 {
				t.Fatalf("chunk %d: %v", r.ChunkID, err)
			}
			if noise(cs[0].Text) {
				t.Errorf("%q: hit %d is noise: %q", tc.query, i+1, cs[0].Text)
			}
			found = found || strings.Contains(cs[0].Text, tc.want)
		}
		if len(resp.Results) > 8 || !found {
			t.Errorf("%q: %d results, answer %q found %v", tc.query, len(resp.Results), tc.want, found)
		}
	}
	if rawNoise == 0 {
		t.Errorf("no query ranks noise in the store's top 8: the table no longer tests the rule")
	}
	t.Logf("%d noise chunks in the store's top 8 over %d queries, none after the rules", rawNoise, len(trustQueries))
}

// sessionsFail is a store whose session listing fails.
type sessionsFail struct{ carryover.Store }

func (sessionsFail) Sessions(context.Context, carryover.SessionFilter) ([]carryover.Session, error) {
	return nil, errors.New("sessions asked for")
}
