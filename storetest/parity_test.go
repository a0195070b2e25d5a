package storetest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
	"github.com/carryover-dev/carryover/transcript"
)

// Thresholds of the rank parity between the stores.
const (
	parityK       = 8    // hits compared per question
	minOverlap    = 0.90 // of the top parityK hits, over all questions
	maxFigureDiff = 2    // survival items the stores may differ by
)

// sharedDir returns the shared data directory beside the repository,
// skipping the test when it is absent, unless CI=true.
func sharedDir(t *testing.T) string {
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

// pair is the same archive in both stores.
type pair struct {
	lite, pg carryover.Store
}

// newPair opens an empty SQLite store and an empty PostgreSQL schema in
// the database at dbURL.
func newPair(t *testing.T, dbURL string) pair {
	t.Helper()
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "carryover.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("parity_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	v := u.Query()
	v.Set("search_path", schema)
	u.RawQuery = v.Encode()
	pg, err := postgres.Open(ctx, u.String(), postgres.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return pair{lite, pg}
}

// overlap counts the hits two rankings share in their top parityK, and the
// hits they hold.
type overlap struct{ shared, total int }

func (o *overlap) add(a, b []carryover.Hit) {
	key := func(h carryover.Hit) string { return h.Chunk.SessionID + "/" + strconv.Itoa(h.Chunk.Seq) }
	in := map[string]bool{}
	for _, h := range a[:min(parityK, len(a))] {
		in[key(h)] = true
	}
	for _, h := range b[:min(parityK, len(b))] {
		if in[key(h)] {
			o.shared++
		}
	}
	o.total += max(min(parityK, len(a)), min(parityK, len(b)))
}

func (o overlap) ratio() float64 {
	if o.total == 0 {
		return 1
	}
	return float64(o.shared) / float64(o.total)
}

func search(t *testing.T, st carryover.Store, q carryover.Query) []carryover.Hit {
	t.Helper()
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

// TestRankParity archives the same sessions in SQLite and in PostgreSQL
// and checks that both rank alike: the compaction-survival dev questions
// (each session archived up to its compaction, as `carryover bench
// survival` does) and a slice of LoCoMo (two conversations, each turn a
// chunk) get top-8 lists that overlap by 90 % or more, and the restore and
// recall figures of the survival questions differ by 2 items at most.
func TestRankParity(t *testing.T) {
	shared := sharedDir(t)
	dbURL := storetest.PostgresDatabase(t)
	if testing.Short() {
		t.Skip("archives three 3 MB sessions and two LoCoMo conversations in both stores")
	}
	t.Run("Survival", func(t *testing.T) { testSurvivalParity(t, shared, dbURL) })
	t.Run("LoCoMo", func(t *testing.T) { testLocomoParity(t, shared, dbURL) })
}

type survivalItem struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
}

func containsAny(text string, answers []string) bool {
	text = strings.ToLower(text)
	for _, a := range answers {
		if a != "" && strings.Contains(text, strings.ToLower(a)) {
			return true
		}
	}
	return false
}

func testSurvivalParity(t *testing.T, shared, dbURL string) {
	ctx := context.Background()
	f, err := os.Open(filepath.Join(shared, "bench", "compaction-survival", "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bySession := map[string][]survivalItem{}
	var sessions []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it survivalItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		if _, ok := bySession[it.Session]; !ok {
			sessions = append(sessions, it.Session)
		}
		bySession[it.Session] = append(bySession[it.Session], it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	const budget = 4000
	var ov overlap
	var restore, recall [2]int
	n := 0
	for _, sid := range sessions {
		pre, summary, cwd := beforeCompaction(t, filepath.Join(shared, "data", "transcripts", "spotter", sid+".jsonl"))
		p := newPair(t, dbURL)
		for i, st := range []carryover.Store{p.lite, p.pg} {
			if _, err := (&ingest.Archiver{Store: st}).File(ctx, pre, ingest.Options{SessionID: sid, Project: cwd}); err != nil {
				t.Fatal(err)
			}
			blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: sid, Project: cwd, Window: 1, Summary: summary, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range bySession[sid] {
				if containsAny(blk.Text, it.Answers) {
					restore[i]++
				}
				rs, err := retrieve.Search(ctx, st, retrieve.SearchRequest{Query: carryover.Query{Text: it.Question, SessionID: sid, Limit: parityK}, Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, r := range rs.Results {
					b.WriteString(r.Text + "\n")
				}
				if containsAny(b.String(), it.Answers) {
					recall[i]++
				}
			}
		}
		for _, it := range bySession[sid] {
			q := carryover.Query{Text: it.Question, SessionID: sid, Limit: parityK}
			ov.add(search(t, p.lite, q), search(t, p.pg, q))
			n++
		}
	}
	t.Logf("survival, %d questions: top-%d overlap %.3f; restore %d (SQLite) / %d (PostgreSQL), recall %d / %d",
		n, parityK, ov.ratio(), restore[0], restore[1], recall[0], recall[1])
	if ov.ratio() < minOverlap {
		t.Errorf("top-%d overlap %.3f, want at least %.2f", parityK, ov.ratio(), minOverlap)
	}
	if d := restore[0] - restore[1]; d > maxFigureDiff || d < -maxFigureDiff {
		t.Errorf("restore finds %d facts in SQLite, %d in PostgreSQL", restore[0], restore[1])
	}
	if d := recall[0] - recall[1]; d > maxFigureDiff || d < -maxFigureDiff {
		t.Errorf("recall finds %d facts in SQLite, %d in PostgreSQL", recall[0], recall[1])
	}
}

// beforeCompaction writes the lines of a transcript before its last
// compaction to a file of their own and returns it, with the summary that
// compaction wrote and the session's directory.
func beforeCompaction(t *testing.T, path string) (pre, summary, cwd string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := len(lines)
	for i, l := range lines {
		e, err := transcript.Decode(bytes.TrimSpace(l))
		if err != nil {
			continue
		}
		if cwd == "" && e.Cwd != "" {
			cwd = e.Cwd
		}
		if e.IsCompactBoundary() {
			cut, summary = i, ""
		}
		if e.CompactSummary && i >= cut {
			summary = e.Text()
		}
	}
	pre = filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(pre, bytes.Join(lines[:cut], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return pre, summary, cwd
}

type locomoConv struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string `json:"question"`
		Category int    `json:"category"`
	} `json:"qa"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// testLocomoParity archives two LoCoMo conversations as `carryover bench
// locomo` does (each turn a chunk, each LoCoMo session a turn) and
// compares the stores' top hits for their questions of categories 1-4.
func testLocomoParity(t *testing.T, shared, dbURL string) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(shared, "data", "locomo", "locomo10.json"))
	if err != nil {
		t.Fatal(err)
	}
	var convs []locomoConv
	if err := json.Unmarshal(data, &convs); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, dbURL)
	var ov overlap
	n := 0
	for _, c := range convs[:2] {
		sid := "locomo-" + c.SampleID
		b := carryover.Batch{Session: carryover.Session{ID: sid, Project: "locomo", Title: sid}, State: carryover.IngestState{SessionID: sid}}
		var nums []int
		for k := range c.Conversation {
			if s, ok := strings.CutPrefix(k, "session_"); ok {
				if i, err := strconv.Atoi(s); err == nil {
					nums = append(nums, i)
				}
			}
		}
		sort.Ints(nums)
		for _, num := range nums {
			var turns []locomoTurn
			if err := json.Unmarshal(c.Conversation["session_"+strconv.Itoa(num)], &turns); err != nil {
				t.Fatal(err)
			}
			for _, tu := range turns {
				text := tu.Speaker + ": " + tu.Text
				if tu.BlipCaption != "" {
					text += " [shares a photo: " + tu.BlipCaption + "]"
				}
				i := len(b.Chunks)
				b.Chunks = append(b.Chunks, carryover.Chunk{SessionID: sid, Project: "locomo", Seq: i, Turn: num,
					FirstLine: i + 1, LastLine: i + 1, Text: text, Hash: sid + "/" + tu.DiaID})
			}
		}
		for _, st := range []carryover.Store{p.lite, p.pg} {
			if err := st.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		for _, qa := range c.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			q := carryover.Query{Text: qa.Question, SessionID: sid, Limit: parityK}
			ov.add(search(t, p.lite, q), search(t, p.pg, q))
			n++
		}
	}
	t.Logf("LoCoMo, %d questions: top-%d overlap %.3f", n, parityK, ov.ratio())
	if ov.ratio() < minOverlap {
		t.Errorf("top-%d overlap %.3f, want at least %.2f", parityK, ov.ratio(), minOverlap)
	}
}
