package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/tokenize"
	"github.com/carryover-dev/carryover/rank"
)

// ftsTokenizer is the chunks index's tokenizer (migration 0004).
const ftsTokenizer = `porter unicode61 remove_diacritics 2 tokenchars '_'`

// indexTokens returns the tokens SQLite's index holds for each text, in
// order, with the store's tokenizer.
func indexTokens(t *testing.T, texts []string) [][]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE probe USING fts5(x, tokenize = "` + ftsTokenizer + `")`,
		`CREATE VIRTUAL TABLE probe_v USING fts5vocab(probe, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if _, err := tx.Exec(`INSERT INTO probe (rowid, x) VALUES (?, ?)`, i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(texts))
	rows, err := db.Query(`SELECT term, doc, offset FROM probe_v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var doc, off int
		if err := rows.Scan(&term, &doc, &off); err != nil {
			t.Fatal(err)
		}
		if off != len(out[doc-1]) {
			t.Fatalf("text %d: token %q at offset %d, want %d", doc-1, term, off, len(out[doc-1]))
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareTokens checks that tokenize.FTS splits every text as the index
// does, reporting at most a few differences.
func compareTokens(t *testing.T, texts []string) {
	t.Helper()
	want := indexTokens(t, texts)
	bad := 0
	for i, s := range texts {
		if got := tokenize.FTSTokens(s); !slices.Equal(got, want[i]) {
			if bad++; bad <= 5 {
				j := 0
				for j < min(len(got), len(want[i])) && got[j] == want[i][j] {
					j++
				}
				t.Errorf("text %d, token %d: tokenize.FTS gives %q, the index %q", i, j, got[j:min(j+5, len(got))], want[i][j:min(j+5, len(want[i]))])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts tokenized differently", bad, len(texts))
	}
}

// TestFTSMatchesIndex checks tokenize.FTS, which the PostgreSQL store
// indexes and ranks with, against the SQLite store's own tokenizer: every
// code point, inside a token and starting one; words built to take every
// branch of the Porter stemmer; lenient UTF-8; and the words of the real
// transcripts and LoCoMo when the shared data is there.
func TestFTSMatchesIndex(t *testing.T) {
	if raceBuild {
		// One goroutine comparing tokens: nothing for the race detector,
		// which makes it take a minute; the tests without -race run it.
		t.Skip("a sequential comparison: run without -race")
	}
	_, path := newStore(t)
	var schema string
	if err := rawDB(t, path).QueryRow(
		`SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema, `tokenize = "`+ftsTokenizer+`"`) {
		t.Fatalf("the index's tokenizer is not %s: %s", ftsTokenizer, schema)
	}

	t.Run("CodePoints", func(t *testing.T) {
		// Every code point of the Basic Multilingual Plane, where nearly
		// every script, case and diacritic is, and every 61st beyond
		// (all of them take half a minute).
		var texts []string
		const per = 2048
		for lo := rune(0x80); lo <= 0x10FFFF; lo += per {
			var mid, start strings.Builder
			for c := lo; c < lo+per && c <= 0x10FFFF; c++ {
				if c >= 0xD800 && c <= 0xDFFF || c > 0xFFFF && c%61 != 0 {
					continue
				}
				fmt.Fprintf(&mid, "q%cq ", c)
				fmt.Fprintf(&start, "%cq A%c_b%c9 ", c, c, c)
			}
			texts = append(texts, mid.String(), start.String())
		}
		compareTokens(t, texts)
	})
	t.Run("Stemmer", func(t *testing.T) {
		stems := []string{"", "a", "e", "y", "b", "by", "ay", "tr", "tre", "hop", "fil", "agr", "agre", "cond", "relat",
			"happ", "sky", "play", "cry", "tann", "fall", "caress", "pon", "rel", "gener", "adjust", "replac", "oscill",
			"feud", "elect", "dep", "yy", "xyz", "ab", "bab", "seiz", "valen", "sens", "digit", "bow", "box", "hiss"}
		suffixes := []string{"", "s", "es", "ies", "sses", "ss", "ed", "eed", "ing", "y", "e", "ll", "l", "at", "bl", "iz",
			"ational", "tional", "enci", "anci", "izer", "logi", "bli", "alli", "entli", "eli", "ousli", "ization",
			"ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "ical", "ness",
			"icate", "iciti", "ful", "ative", "alize", "al", "ance", "ence", "er", "ic", "able", "ible", "ant",
			"ement", "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "ated", "ating",
			"izing", "bled", "ying", "ies", "ings", "ers", "ments", "fully", "lessness"}
		var b strings.Builder
		var texts []string
		for _, s := range stems {
			for _, x := range suffixes {
				for _, y := range []string{"", "s", "ed", "ing", "ly", "ness"} {
					b.WriteString(s + x + y + " ")
				}
			}
			texts = append(texts, b.String())
			b.Reset()
		}
		texts = append(texts, strings.Repeat("a", 64)+"ing "+strings.Repeat("a", 61)+"ing é"+strings.Repeat("ed", 31)+" ÀÉÎing ÿes ŀŀed")
		compareTokens(t, texts)
	})
	t.Run("LenientUTF8", func(t *testing.T) {
		compareTokens(t, []string{"a\x80b \xaa\xba \xc3 x \xc3\xa9\xa9z \xe4\xb8 \xf0\x9f\x98\x80x \xffq \xc0\x80q \xed\xa0\x80q \xef\xbf\xbeq"})
	})
	t.Run("RealText", func(t *testing.T) {
		shared := sharedData(t)
		if testing.Short() {
			t.Skip("tokenizes 5 MB of text twice")
		}
		var texts []string
		// One real session (2.6 MB) and LoCoMo.
		files, _ := filepath.Glob(filepath.Join(shared, "data", "transcripts", "spotter", "258c7280*.jsonl"))
		if len(files) == 0 {
			t.Fatal("no spotter transcript 258c7280")
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for l := range strings.Lines(string(data)) {
				texts = append(texts, l)
			}
		}
		data, err := os.ReadFile(filepath.Join(shared, "data", "locomo", "locomo10.json"))
		if err != nil {
			t.Fatal(err)
		}
		var convs []struct {
			QA []struct {
				Question string `json:"question"`
			} `json:"qa"`
		}
		if err := json.Unmarshal(data, &convs); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(data))
		for _, c := range convs {
			for _, q := range c.QA {
				texts = append(texts, q.Question)
			}
		}
		compareTokens(t, texts)
	})
}

// sharedData returns the shared data directory beside the repository,
// skipping the test when it is absent, unless CI=true.
func sharedData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared data missing at %s: %v", dir, err)
		}
		t.Skipf("shared data not found at %s (a checkout of the repository alone has none)", dir)
	}
	return dir
}

// TestFTSPorterExamples pins a few stems, so that a failure of
// TestFTSMatchesIndex can be read against known cases.
func TestFTSPorterExamples(t *testing.T) {
	got := tokenize.FTSTokens("Deployments painted the Clusters; naïve café running ponies relational hopping agreed SpotterWeb.Endpoint foo_bar")
	want := []string{"deploy", "paint", "the", "cluster", "naiv", "cafe", "run", "poni", "relat", "hop", "agre", "spotterweb", "endpoint", "foo_bar"}
	if !slices.Equal(got, want) {
		t.Errorf("FTSTokens = %q, want %q", got, want)
	}
}

// TestBM25MatchesIndex computes each hit's BM25 with package rank from the
// chunks' texts (rank.Fields, rank.NewDocument, FTS5's statistics counted
// in Go) and checks it against the score SQLite's index gives it: the
// PostgreSQL store ranks with these functions.
func TestBM25MatchesIndex(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}}
	texts := []string{
		"the deploy failed with a timeout talking to the registry; deploy again",
		"renamed parseHTTPResponse to decodeReply in the client and deployed it",
		"edited src/app/main.go and main_test.go; go test ./... passes",
		"set MAX_RETRIES to 5 in config/prod.exs, then the deploys stopped timing out",
		"首次全量 = 自动化优先; the registry times out on a full sync",
		"nothing about code here: the weather, a walk, lunch",
	}
	for i, x := range texts {
		b.Chunks = append(b.Chunks, carryover.Chunk{Seq: i, Turn: i / 2, Hash: fmt.Sprint(i), Text: x,
			Prompt: "fix the deploy timeout", Summary: fmt.Sprintf("step %d", i),
			Files: []string{fmt.Sprintf("src/app/file%d.go", i%3)}, Commands: []string{"go test ./..."}})
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[int64]rank.Document{}
	total := 0
	for _, c := range chunks {
		docs[c.ID] = rank.NewDocument(rank.Fields(c))
		total += docs[c.ID].Len
	}
	avg := float64(total) / float64(len(docs))
	for _, q := range []string{"deploy timeout", "main.go", "src/app/main.go tests", "parseHTTPResponse reply", "MAX_RETRIES prod",
		"全量", "自动化优先", "registry sync", "file1.go go test"} {
		hits, err := st.Search(ctx, carryover.Query{Text: q, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Errorf("%q: no hits", q)
		}
		// The query's phrases that match something, rarest first (the
		// store's plan), with their idf over the whole index.
		type phrase struct {
			toks []string
			df   int
		}
		var ps []phrase
		for _, term := range tokenize.QueryTerms(q, 24) {
			p := phrase{toks: rank.Phrase(term)}
			for _, d := range docs {
				if rank.PhraseFreq(p.toks, d.Postings) > 0 {
					p.df++
				}
			}
			if p.df > 0 {
				ps = append(ps, p)
			}
		}
		slices.SortStableFunc(ps, func(a, b phrase) int { return a.df - b.df })
		for _, h := range hits {
			d := docs[h.Chunk.ID]
			var idf, freq []float64
			for _, p := range ps {
				idf = append(idf, rank.IDF(len(docs), p.df))
				freq = append(freq, rank.PhraseFreq(p.toks, d.Postings))
			}
			if got := rank.BM25(idf, freq, d.Len, avg); math.Abs(got-h.BM25) > 1e-9*math.Abs(h.BM25) {
				t.Errorf("%q, chunk %d: rank.BM25 %.12g, the index %.12g", q, h.Chunk.Seq, got, h.BM25)
			}
		}
	}
}
