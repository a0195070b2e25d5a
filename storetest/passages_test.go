package storetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

const deepID = "7e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"

// deepTranscript is a session whose tool results are too long for any
// chunk to keep whole: a 3,000-line config dump with
// RATE_LIMIT_WINDOW_MS=84213 at its line 2,613, a go test -v log whose
// failing test is at its line 1,877, and long logs in Chinese and in
// Japanese mixed with Latin.
func deepTranscript() []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"], v["cwd"] = deepID, "/home/dev/shop"
		v["timestamp"], v["uuid"] = ts.Format(time.RFC3339Nano), fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	user := func(text string) {
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	}
	bash := func(n int, cmd, out string) {
		tu := fmt.Sprintf("toolu_%02d", n)
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%02d", n), "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": tu, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
		add(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false},
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tu, "content": out}}}})
	}
	say := func(n int, text string) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_t%02d", n), "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": text}}}})
	}

	var cfg []string
	for i := 1; i <= 3000; i++ {
		switch i {
		case 2613:
			cfg = append(cfg, "RATE_LIMIT_WINDOW_MS=84213")
		default:
			cfg = append(cfg, fmt.Sprintf("SERVICE_%s_SETTING_%d=value%d", []string{"CACHE", "QUEUE", "MAILER", "STORE"}[i%4], i, i*7))
		}
	}
	user("dump the service configuration so we can check the settings")
	bash(1, "env | sort", strings.Join(cfg, "\n"))
	say(1, "The configuration is loaded; nothing looks off at first sight.")

	var log []string
	for i := 1; len(log) < 2400; i++ {
		name := fmt.Sprintf("TestOrderTotal%04d", i)
		if len(log) == 1876 {
			log = append(log, "=== RUN   TestRefundRoundsHalfEven")
			log = append(log, "--- FAIL: TestRefundRoundsHalfEven (0.00s)")
			log = append(log, "    refund_test.go:88: got 10.04, want 10.05")
			continue
		}
		log = append(log, "=== RUN   "+name, fmt.Sprintf("--- PASS: %s (0.00s)", name))
	}
	log = append(log, "FAIL", "FAIL\tgithub.com/acme/shop/billing\t0.412s")
	user("run the billing tests verbosely")
	bash(2, "go test -v ./billing/", strings.Join(log, "\n"))
	say(2, "One billing test fails; the rest pass.")

	// A long log with one line that answers, at the given line.
	logWith := func(n, at int, hit string, line func(i int) string) string {
		out := make([]string, 0, n)
		for i := 1; i <= n; i++ {
			if i == at {
				out = append(out, hit)
				continue
			}
			out = append(out, line(i))
		}
		return strings.Join(out, "\n")
	}
	user("同步日志")
	bash(3, "tail -n 900 sync.log", logWith(900, 777, "错误：首次全量同步失败，订单表缺少索引 idx_orders_created",
		func(i int) string { return fmt.Sprintf("信息：第%d批数据已处理，耗时%d毫秒", i, i%97) }))
	user("デプロイのログ")
	bash(4, "tail -n 600 deploy.log", logWith(600, 321, "エラー：設定ファイル config_loader.yaml の読み込みに失敗しました",
		func(i int) string {
			return fmt.Sprintf("情報：第%dバッチを処理しました（%dミリ秒）", i, i%89)
		}))
	user("thanks, that is all for now")
	say(3, "Done.")
	return lines
}

// TestDeepLinesSQLite: see testDeepLines.
func TestDeepLinesSQLite(t *testing.T) { testDeepLines(t, sqliteStore(t)) }

// sqliteStore opens a new SQLite store, closed when the test ends.
func sqliteStore(t *testing.T) carryover.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestDeepLinesPostgres: see testDeepLines.
func TestDeepLinesPostgres(t *testing.T) {
	testDeepLines(t, newPair(t, storetest.PostgresDatabase(t)).pg)
}

// testDeepLines archives deepTranscript through the real ingest and
// searches it as `carryover search` does: a line deep in a long tool
// result, which no chunk keeps, is found by its key and by a natural
// question, and shown with its line number and a way to read more.
func testDeepLines(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), deepID+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(deepTranscript(), "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Archived as a cold PreCompact does: the passages left for later.
	if _, err := (&ingest.Archiver{Store: st, DeferPassages: true}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	ps := st.(carryover.PassageSearcher)
	count := func() int {
		t.Helper()
		hits, err := ps.SearchPassages(ctx, carryover.Query{Text: "RATE_LIMIT_WINDOW_MS", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d passages indexed by a write that defers them", n)
	}
	steps := 0
	for done := false; !done; steps++ {
		var err error
		if done, err = st.(carryover.PassageIndexer).IndexPassages(ctx, deepID, 3); err != nil {
			t.Fatal(err)
		}
	}
	if steps < 3 {
		t.Errorf("%d lines indexed in %d steps of 3", len(deepTranscript()), steps)
	}
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: deepID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		for _, lost := range []string{"RATE_LIMIT_WINDOW_MS", "TestRefundRoundsHalfEven", "idx_orders_created"} {
			if strings.Contains(c.Text, lost) {
				t.Fatalf("chunk %d keeps %s: the test needs a line no chunk holds", c.Seq, lost)
			}
		}
	}
	search := func(q string) retrieve.SearchResponse {
		t.Helper()
		res, err := retrieve.Search(ctx, st, retrieve.SearchRequest{Query: carryover.Query{Text: q}})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return res
	}
	for _, c := range []struct {
		query, want string
		first       bool // the first hit shows it
	}{
		{"RATE_LIMIT_WINDOW_MS", " 2613│ RATE_LIMIT_WINDOW_MS=84213", true},
		{"What was the rate limit window in the config?", " 2613│ RATE_LIMIT_WINDOW_MS=84213", false},
		{"Where does the 84213 in the service settings come from?", " 2613│ RATE_LIMIT_WINDOW_MS=84213", true},
		{"TestRefundRoundsHalfEven", " 1878│ --- FAIL: TestRefundRoundsHalfEven (0.00s)", true},
		{"Which billing test failed, and why?", "refund_test.go:88: got 10.04, want 10.05", false},
		{"全量同步", "  777│ 错误：首次全量同步失败", true},
		{"为什么首次全量同步失败了", "  777│ 错误：首次全量同步失败", false},
		{"設定ファイル", "  321│ エラー：設定ファイル config_loader.yaml", true},
		{"config_loader.yaml 読み込み失敗", "  321│ エラー：設定ファイル config_loader.yaml", true},
	} {
		res := search(c.query)
		var shown []string
		at := -1
		for i, r := range res.Results {
			shown = append(shown, r.Text)
			if at < 0 && strings.Contains(r.Text, c.want) {
				at = i
			}
		}
		switch {
		case at < 0:
			t.Errorf("%q: no hit shows %q; got:\n%s", c.query, c.want, strings.Join(shown, "\n---\n"))
			continue
		case c.first && at > 0:
			t.Errorf("%q: hit %d shows %q, want the first", c.query, at+1, c.want)
		}
		r := res.Results[at]
		if !strings.Contains(r.Text, "more: carryover get "+carryover.ShortID(deepID)+":") {
			t.Errorf("%q: the hit does not say how to read more:\n%s", c.query, r.Text)
		}
		if len(r.Text) > retrieve.DefaultSearchBudget {
			t.Errorf("%q: %d bytes, over the budget", c.query, len(r.Text))
		}
	}
	// Prompt recall, after a compaction, shows the line past the cut of
	// the chunk it injects from the earlier window.
	sess, err := st.Session(ctx, deepID)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := retrieve.ExplainRecall(ctx, st, retrieve.RecallRequest{SessionID: deepID, Window: 1, Project: sess.Project,
		Prompt: "dump the service configuration again: what is RATE_LIMIT_WINDOW_MS in the service configuration settings?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ex.Block.Text, "2613│ RATE_LIMIT_WINDOW_MS=84213") {
		t.Errorf("recall does not show the deep line:\n%s\ncandidates: %+v", ex.Block.Text, ex.Candidates)
	}
	for i := 1; i < 4; i++ {
		// Labels never rise down the list.
		res := search([]string{"", "config setting value", "test pass", "同步"}[i])
		for j := 1; j < len(res.Results); j++ {
			if rankOf(res.Results[j].Band) > rankOf(res.Results[j-1].Band) {
				t.Errorf("hit %d is %s below a %s hit", j+1, res.Results[j].Band, res.Results[j-1].Band)
			}
		}
	}
	// A question asked in Chinese, one run of 12 runes that no text holds
	// whole, finds the passage of the line it asks about by its bigrams.
	phrase, err := ps.SearchPassages(ctx, carryover.Query{Text: "首次全量同步失败", Limit: 3})
	if err != nil || len(phrase) == 0 {
		t.Fatalf("the phrase: %d passages (%v)", len(phrase), err)
	}
	if q, err := ps.SearchPassages(ctx, carryover.Query{Text: "为什么首次全量同步失败了", Limit: 3}); err != nil || len(q) == 0 ||
		q[0].Line != phrase[0].Line || q[0].Part != phrase[0].Part {
		t.Errorf("a question in Chinese: %+v (%v), want first %+v", q, err, phrase[0])
	}
	// Bad queries: nothing but stop words finds nothing; a pasted wall of
	// text is searched without error.
	if res := search("what is the of and to"); len(res.Results) != 0 {
		t.Errorf("stop words found %d hits", len(res.Results))
	}
	long := strings.Repeat("RATE_LIMIT_WINDOW_MS configuration value ", 50)[:2000]
	if res := search(long); len(res.Results) == 0 || !strings.Contains(res.Results[0].Text, "84213") {
		t.Errorf("a 2,000-char query lost the deep line: %+v", res.Results)
	}
	// More lines index after the mark; the passages go with their
	// session.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tail := strings.Replace(deepTranscript()[1], "u-1", "u-tail", 1)
	if _, err := f.WriteString(strings.Replace(tail, "RATE_LIMIT_WINDOW_MS", "RATE_LIMIT_BURST", 1) + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if hits, err := ps.SearchPassages(ctx, carryover.Query{Text: "RATE_LIMIT_BURST", Limit: 10}); err != nil || len(hits) != 1 {
		t.Errorf("the appended line: %d passages (%v), want 1", len(hits), err)
	}
	if n := count(); n != 1 {
		t.Errorf("%d passages hold the key, want 1", n)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: deepID, Forget: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d passages left after forget", n)
	}
}

func rankOf(band string) int {
	return map[string]int{retrieve.BandStrong: 2, retrieve.BandGood: 1}[band]
}
