package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// filler is neutral prose, so chunks have realistic lengths.
const filler = "The assistant read the surrounding code, considered the options and then continued with the plan. "

func chunk(seq int, hash, text string) carryover.Chunk {
	return carryover.Chunk{Seq: seq, Hash: hash, Text: text, Start: base.Add(time.Duration(seq) * time.Minute)}
}

// applyChunks stores chunks as one session's batch.
func applyChunks(t testing.TB, st *sqlite.Store, session, project string, chunks ...carryover.Chunk) {
	t.Helper()
	b := carryover.Batch{Session: carryover.Session{ID: session, Project: project}, Chunks: chunks}
	if err := st.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// search returns the hashes of the hits in rank order.
func search(t testing.TB, st *sqlite.Store, q carryover.Query) []string {
	t.Helper()
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	var out []string
	for i, h := range hits {
		if h.Score <= 0 {
			t.Errorf("Search(%q): hit %s has score %v, want > 0", q.Text, h.Chunk.Hash, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("Search(%q): scores not descending", q.Text)
		}
		out = append(out, h.Chunk.Hash)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestSearchRanksStructuredFieldsFirst(t *testing.T) {
	st, _ := newStore(t)
	text := strings.Repeat(filler, 4)
	inText := chunk(0, "in-text", text+" It mentions the frobnicator once. "+text)
	inFiles := chunk(1, "in-files", text+text)
	inFiles.Files = []string{"internal/frobnicator/frobnicator.go"}
	inCommands := chunk(2, "in-commands", text+text)
	inCommands.Commands = []string{"go test ./internal/frobnicator"}
	inErrors := chunk(3, "in-errors", text+text)
	inErrors.Errors = []string{"panic: frobnicator: nil map"}
	applyChunks(t, st, "s1", "/p", inText, inFiles, inCommands, inErrors, chunk(4, "unrelated", text))

	got := search(t, st, carryover.Query{Text: "frobnicator"})
	if len(got) != 4 {
		t.Fatalf("hits %v, want 4", got)
	}
	if got[3] != "in-text" {
		t.Errorf("ranking %v: a single mention in the text should rank below files, commands and errors", got)
	}
}

func TestSearchFieldWeights(t *testing.T) {
	st, _ := newStore(t)
	// Same lengths everywhere; only the column holding the term differs.
	text := strings.Repeat(filler, 2)
	mk := func(seq int, hash, extra, command string) carryover.Chunk {
		c := chunk(seq, hash, text+extra)
		c.Commands = []string{command}
		return c
	}
	applyChunks(t, st, "s1", "/p",
		mk(0, "twice-in-text", "The frobnicator broke, the frobnicator.", "go test ./internal/widget -run TestAll -count=1"),
		mk(1, "in-command", "The gadget broke, the gadget again.", "go test ./internal/frobnicator -run TestAll"),
		mk(2, "other", "The gizmo broke, the gizmo again.", "go test ./internal/gizmo -run TestAll -count=1"),
	)
	// Unweighted BM25 would prefer two mentions in the prose.
	if got := search(t, st, carryover.Query{Text: "frobnicator"}); len(got) != 2 || got[0] != "in-command" {
		t.Errorf("Search(frobnicator) = %v, want in-command first", got)
	}
}

func TestSearchCodeAware(t *testing.T) {
	st, _ := newStore(t)
	text := strings.Repeat(filler, 2)
	applyChunks(t, st, "s1", "/p",
		chunk(0, "camel", text+"Renamed parseHTTPResponse to decodeReply."),
		chunk(1, "snake", text+"Raised max_retry_count to 5."),
		chunk(2, "path", text+"Edited src/app/main.go and ran it."),
		chunk(3, "kebab", text+"Enabled the --dry-run flag of the deploy-tool."),
		chunk(4, "accent", text+"Le café est prêt."),
		chunk(5, "plain", text+"Nothing technical here."),
	)
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"http response", "camel"},
		{"parseHTTPResponse", "camel"},
		{"parse_http_response", "camel"},
		{"retry count", "snake"},
		{"max_retry_count", "snake"},
		{"maxRetryCount", "snake"},
		{"main.go", "path"},
		{"main", "path"},
		{"src/app/main.go", "path"},
		{"where is `main.go`?", "path"},
		{"deploy-tool", "kebab"},
		{"dry run", "kebab"},
		{"cafe", "accent"},
		{"CAFÉ", "accent"},
		{"ｍａｉｎ．ｇｏ", "path"}, // fullwidth, NFKC → main.go
	} {
		got := search(t, st, carryover.Query{Text: tc.query})
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, got, tc.want)
		}
		if contains(got, "plain") {
			t.Errorf("Search(%q) found the unrelated chunk: %v", tc.query, got)
		}
	}
}

func TestSearchPhraseOutranksParts(t *testing.T) {
	st, _ := newStore(t)
	text := strings.Repeat(filler, 2)
	applyChunks(t, st, "s1", "/p",
		chunk(0, "scattered", text+"The main loop is written in go, see app/server.go."),
		chunk(1, "exact", text+"Edited cmd/main.go."),
	)
	if got := search(t, st, carryover.Query{Text: "main.go"}); len(got) != 2 || got[0] != "exact" {
		t.Errorf("Search(main.go) = %v, want exact first", got)
	}
}

func TestSearchFilters(t *testing.T) {
	st, _ := newStore(t)
	c := func(seq, win int, start time.Time) carryover.Chunk {
		ch := chunk(seq, fmt.Sprintf("h%d", seq), "the widget factory is broken")
		ch.Window, ch.Start, ch.End = win, start, start.Add(time.Minute)
		return ch
	}
	applyChunks(t, st, "a", "/p", c(0, 0, base), c(1, 0, base.Add(time.Hour)), c(2, 1, base.Add(2*time.Hour)))
	applyChunks(t, st, "b", "/p", c(3, 0, base), c(4, 2, base.Add(3*time.Hour)))
	applyChunks(t, st, "c", "/q", c(5, 0, base))

	for _, tc := range []struct {
		name string
		q    carryover.Query
		want int
	}{
		{"all", carryover.Query{}, 6},
		{"project", carryover.Query{Project: "/p"}, 5},
		{"unknown project", carryover.Query{Project: "/nope"}, 0},
		{"session", carryover.Query{SessionID: "b"}, 2},
		{"unknown session", carryover.Query{SessionID: "nope"}, 0},
		{"before window", carryover.Query{Project: "/p", BeforeWindow: 1}, 3},
		{"session before window", carryover.Query{SessionID: "a", BeforeWindow: 1}, 2},
		{"since", carryover.Query{Since: base.Add(90 * time.Minute)}, 2},
		{"limit", carryover.Query{Limit: 4}, 4},
	} {
		tc.q.Text = "widget"
		hits, err := st.Search(context.Background(), tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(hits) != tc.want {
			t.Errorf("%s: %d hits, want %d", tc.name, len(hits), tc.want)
		}
		for _, h := range hits {
			if tc.q.SessionID != "" && h.Chunk.SessionID != tc.q.SessionID ||
				tc.q.Project != "" && h.Chunk.Project != tc.q.Project ||
				tc.q.BeforeWindow > 0 && h.Chunk.Window >= tc.q.BeforeWindow ||
				!tc.q.Since.IsZero() && h.Chunk.End.Before(tc.q.Since) {
				t.Errorf("%s: hit outside the filter: %+v", tc.name, h.Chunk)
			}
		}
	}
}

func TestSearchFileFilter(t *testing.T) {
	st, _ := newStore(t)
	a := chunk(0, "a", "fixed the parser in the lexer")
	a.Files = []string{"internal/lexer/scan_test.go"}
	b := chunk(1, "b", "fixed the parser in the printer")
	b.Files = []string{"internal/printer/print.go"}
	c := chunk(2, "c", "fixed the parser, a 100% wildcard_case")
	c.Files = []string{"docs/100%_done.md"}
	applyChunks(t, st, "s", "/p", a, b, c)
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"lexer/", []string{"a"}},
		{"print.go", []string{"b"}},
		{"100%_", []string{"c"}},
		{"%", []string{"c"}}, // a literal percent sign, not a wildcard
		{"_test", []string{"a"}},
		{"nowhere", nil},
	} {
		got := search(t, st, carryover.Query{Text: "parser", File: tc.file})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("File %q: got %v, want %v", tc.file, got, tc.want)
		}
	}
}

func TestSearchDefaultLimit(t *testing.T) {
	st, _ := newStore(t)
	var cs []carryover.Chunk
	for i := range sqlite.DefaultSearchLimit + 5 {
		cs = append(cs, chunk(i, fmt.Sprint(i), "the gizmo works"))
	}
	applyChunks(t, st, "s1", "/p", cs...)
	if got := search(t, st, carryover.Query{Text: "gizmo"}); len(got) != sqlite.DefaultSearchLimit {
		t.Errorf("%d hits, want the default limit %d", len(got), sqlite.DefaultSearchLimit)
	}
}

func TestSearchAnyInput(t *testing.T) {
	st, _ := newStore(t)
	applyChunks(t, st, "s1", "/p",
		chunk(0, "a", `foo-bar: (x "quoted" AND OR NOT NEAR * ^ col:value {a b} café 日本語 🚀 über`),
		chunk(1, "b", strings.Repeat(filler, 3)),
	)
	long := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit; fooBar_baz/qux.go ", 140) // ~10 KB
	for _, q := range []string{
		`"`, `""`, `"""`, `foo"bar`, `foo-bar: (x`, `(`, `)`, `AND`, `OR`, `NOT`, `NEAR`, `NEAR(a b)`, `a AND b OR NOT c`,
		`*`, `foo*`, `^foo`, `col:value`, `prompt:foo`, `{a b}: c`, `'`, `\`, `\"`, `--`, `-foo`, `+foo`, `foo:`, `:`,
		`;DROP TABLE chunks;--`, "\x00", "\x00foo", "foo\x00bar", "\xff\xfe", "café", "日本語", "🚀", "🚀🚀 rocket",
		"\u0301\u0301", "a\u0301b", "x", "  ", "\t\n", "", "the and of", "ﬁ", long,
	} {
		hits, err := st.Search(context.Background(), carryover.Query{Text: q})
		if err != nil {
			t.Errorf("Search(%.40q): %v", q, err)
		}
		if strings.TrimSpace(q) == "" && len(hits) != 0 {
			t.Errorf("Search(%q) = %d hits, want none", q, len(hits))
		}
		if _, err := st.SearchItems(context.Background(), carryover.Query{Text: q}); err != nil {
			t.Errorf("SearchItems(%.40q): %v", q, err)
		}
	}
	for q, want := range map[string]string{`foo-bar: (x`: "a", `NEAR`: "a", `日本語`: "a", "über": "a", long: "a"} {
		if got := search(t, st, carryover.Query{Text: q}); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%.40q) = %v, want %s first", q, got, want)
		}
	}
	for _, q := range []string{"", "the and of", "🚀", "x"} {
		if got := search(t, st, carryover.Query{Text: q}); len(got) != 0 {
			t.Errorf("Search(%q) = %v, want no hits", q, got)
		}
	}
}

func TestSearchItems(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	for _, b := range []carryover.Batch{storetest.Batch("s1", "/p", 0, 3), storetest.Batch("s2", "/q", 0, 1)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := st.SearchItems(ctx, carryover.Query{Text: "undefined Key", Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Item.Kind != carryover.KindError || hits[0].Item.SessionID != "s1" || hits[0].Score <= 0 {
		t.Fatalf("SearchItems = %+v, want the error item of s1", hits)
	}
	// An item whose text changes is re-indexed.
	b := storetest.Batch("s1", "/p", 0, 3)
	b.Items = []carryover.Item{{ChunkSeq: 2, Kind: carryover.KindError, Key: "error:undefined key",
		Text: "undefined: Kee", Detail: "renamed the frobulator", Line: 99}}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if hits, _ := st.SearchItems(ctx, carryover.Query{Text: "frobulator", SessionID: "s1"}); len(hits) != 1 {
		t.Errorf("new detail not found: %+v", hits)
	}
	if hits, _ := st.SearchItems(ctx, carryover.Query{Text: "Key", SessionID: "s1"}); len(hits) != 0 {
		t.Errorf("the replaced text is still indexed: %+v", hits)
	}
	if hits, _ := st.SearchItems(ctx, carryover.Query{Text: "TestCache1", SessionID: "s1", BeforeWindow: 1, Limit: 1}); len(hits) != 1 {
		t.Errorf("filtered item search: %+v", hits)
	}
}

func TestSearchBoundsCommonTerms(t *testing.T) {
	st, _ := newStore(t)
	old := []carryover.Chunk{chunk(0, "zanzibar", "the zanzibar widget")}
	for i := 1; i <= 10; i++ {
		old = append(old, chunk(i, fmt.Sprint("old", i), "an old widget"))
	}
	applyChunks(t, st, "old", "/old", old...)
	var recent []carryover.Chunk
	for i := range sqlite.MaxCandidates + 100 {
		recent = append(recent, chunk(i, fmt.Sprint("new", i), fmt.Sprintf("widget number %d", i)))
	}
	applyChunks(t, st, "new", "/new", recent...)

	// The common term is dropped in favour of the rare one.
	if got := search(t, st, carryover.Query{Text: "zanzibar widget"}); len(got) == 0 || got[0] != "zanzibar" {
		t.Errorf("Search(zanzibar widget) = %.5v, want zanzibar first", got)
	}
	// A term matching more than the bound ranks its newest matches...
	hits, err := st.Search(context.Background(), carryover.Query{Text: "widget", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 50 {
		t.Errorf("Search(widget): %d hits, want 50", len(hits))
	}
	for _, h := range hits {
		if h.Chunk.SessionID != "new" {
			t.Errorf("Search(widget) ranked an old chunk: %+v", h.Chunk)
		}
	}
	// ...no more than rank.CappedCandidates of them...
	hits, err = st.Search(context.Background(), carryover.Query{Text: "widget", Limit: 2 * rank.CappedCandidates})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != rank.CappedCandidates {
		t.Errorf("Search(widget, Limit %d): %d hits, want %d", 2*rank.CappedCandidates, len(hits), rank.CappedCandidates)
	}
	for _, h := range hits {
		if h.Chunk.SessionID != "new" || h.Chunk.Seq < len(recent)-rank.CappedCandidates {
			t.Fatalf("Search(widget) ranked %s #%d, not one of the newest %d matches", h.Chunk.SessionID, h.Chunk.Seq, rank.CappedCandidates)
		}
	}
	// ...among the rows that pass the filters.
	for _, q := range []carryover.Query{{Text: "widget", Project: "/old"}, {Text: "widget", SessionID: "old"}} {
		if got := search(t, st, q); len(got) != 11 {
			t.Errorf("Search(%+v): %d hits, want 11", q, len(got))
		}
	}
}

// TestSearchKeepsRarestCommonWord: when every word of a query matches more
// rows than a search ranks, the word kept is the rarest (plan),
// though the query names a commoner one first: its newest matches are the
// candidates, so no hit lacks it.
func TestSearchKeepsRarestCommonWord(t *testing.T) {
	st, _ := newStore(t)
	const n = sqlite.MaxCandidates + 200
	var cs []carryover.Chunk
	for seq := range n {
		// heron is in every chunk; egret in all but the oldest 50 and
		// the newest 50.
		text := "heron wading at dawn"
		if seq >= 50 && seq < n-50 {
			text += " with an egret"
		}
		cs = append(cs, chunk(seq, fmt.Sprint("c", seq), text))
	}
	applyChunks(t, st, "s1", "/p", cs...)
	hits, err := st.Search(context.Background(), carryover.Query{Text: "heron egret", Project: "/p", Limit: rank.CappedCandidates})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hit")
	}
	for _, h := range hits {
		if !strings.Contains(h.Chunk.Text, "egret") {
			t.Fatalf("hit %d lacks the rarer word: the commoner one was kept (%d hits)", h.Chunk.Seq, len(hits))
		}
	}
}

// TestSearchItemsBoundsCommonTerms checks that an item search whose only
// term is in more than the bound ranks that term's newest matches, among
// the items that pass the filters.
func TestSearchItemsBoundsCommonTerms(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	items := func(session string, n int) carryover.Batch {
		b := carryover.Batch{Session: carryover.Session{ID: session, Project: "/" + session}, Chunks: []carryover.Chunk{chunk(0, session, "a widget")}}
		for i := range n {
			b.Items = append(b.Items, carryover.Item{SessionID: session, Kind: carryover.KindCommand,
				Text: fmt.Sprintf("make widget %d", i), Key: fmt.Sprintf("command:%s %d", session, i)})
		}
		return b
	}
	for _, b := range []carryover.Batch{items("old", 3), items("new", sqlite.MaxCandidates+100)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := st.SearchItems(ctx, carryover.Query{Text: "widget", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 50 {
		t.Errorf("SearchItems(widget): %d hits, want 50", len(hits))
	}
	for _, h := range hits {
		if h.Item.SessionID != "new" || h.Score <= 0 {
			t.Errorf("SearchItems(widget) ranked %+v, want only new items with a score", h)
		}
	}
	for _, q := range []carryover.Query{{Text: "widget", Project: "/old"}, {Text: "widget", SessionID: "old"}} {
		if hits, err := st.SearchItems(ctx, q); err != nil || len(hits) != 3 {
			t.Errorf("SearchItems(%+v): %d hits (%v), want 3", q, len(hits), err)
		}
	}
}
