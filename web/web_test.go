package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
	"github.com/carryover-dev/carryover/web"
)

const (
	sessionID = "0b7e4c1a-9d2f-4e6b-8a3c-5f1d2e3c4b5a"
	project   = "/home/dev/<proj>&co"
	token     = "test-token-0123456789"
	hostile   = `<script>alert("pwned")</script>`
)

var base = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// archive stores one session with hostile text in its title, prompt and
// chunks, a compaction with a summary, a restore that carried two of its
// chunks, and a hook run.
func archive(t *testing.T) carryover.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b := carryover.Batch{
		Session: carryover.Session{ID: sessionID, Project: project, Title: "fix the parser " + hostile, Started: base,
			Updated: base.Add(time.Hour), Windows: 1, Turns: 3},
		State: carryover.IngestState{SessionID: sessionID, Path: "/x/s.jsonl", FileID: "f", Offset: 1, Line: 40},
	}
	texts := []string{
		"User: fix parseHTTPResponse, it panics on an empty body " + hostile,
		"Assistant: the tokenizer drops the last byte; <img src=x onerror=alert(1)> was in the fixture",
		"Assistant: after the compaction: parseHTTPResponse now checks len(body) == 0 && returns ErrEmpty",
	}
	for i, tx := range texts {
		b.Chunks = append(b.Chunks, carryover.Chunk{SessionID: sessionID, Project: project, Seq: i, Turn: i, Window: i / 2,
			FirstLine: 10*i + 1, LastLine: 10*i + 9, Start: base, End: base, Prompt: "prompt " + hostile,
			Summary: tx[:40], Text: tx, Hash: "h" + string(rune('a'+i))})
	}
	b.Compactions = []carryover.Compaction{{SessionID: sessionID, Window: 1, Trigger: "auto", PreTokens: 150000,
		Line: 25, Time: base.Add(30 * time.Minute), Summary: "Summary: the user asked to fix " + hostile}}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sessionID, Turn: -1})
	if err != nil || len(chunks) != 3 {
		t.Fatalf("chunks: %v %d", err, len(chunks))
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{Time: base.Add(31 * time.Minute), SessionID: sessionID,
		Project: project, Event: "SessionStart:compact", Window: 1, Chars: 1200, Tokens: 300,
		ChunkIDs: []int64{chunks[0].ID, chunks[1].ID, 999999}, Hash: "abc123"}); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base, SessionID: sessionID, Project: project,
		Event: "SessionStart:compact", Latency: 42 * time.Millisecond, Outcome: "ok", Chars: 1200}); err != nil {
		t.Fatal(err)
	}
	return st
}

// serve starts the view on a real loopback listener.
func serve(t *testing.T, st carryover.Store) (*httptest.Server, *http.Client) {
	t.Helper()
	s, err := web.New(st, web.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	return ts, &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// login opens the token URL, which sets the cookie.
func login(t *testing.T, ts *httptest.Server, c *http.Client) {
	t.Helper()
	if code, body := get(t, c, ts.URL+"/?t="+token); code != http.StatusOK || !strings.Contains(body, "Projects") {
		t.Fatalf("login: %d %s", code, body)
	}
}

func TestTokenRequired(t *testing.T) {
	ts, c := serve(t, archive(t))
	for _, p := range []string{"/", "/stats", "/search?q=parser", "/session/" + sessionID, "/static/style.css", "/nope", "/?t=wrong"} {
		if code, _ := get(t, c, ts.URL+p); code != http.StatusForbidden {
			t.Errorf("%s without the token: %d, want 403", p, code)
		}
	}
	// The token URL sets the cookie and redirects to the page without it.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(ts.URL + "/search?q=parser&t=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/search?q=parser" {
		t.Fatalf("token URL: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var ck *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == web.CookieName {
			ck = k
		}
	}
	if ck == nil || ck.Value != token || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie: %+v", ck)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/stats", nil)
	req.AddCookie(&http.Cookie{Name: web.CookieName, Value: token + "x"})
	if resp, err := noFollow.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong cookie: %v %v", err, resp.StatusCode)
	}
	login(t, ts, c)
	for _, p := range []string{"/", "/stats", "/search?q=parser", "/session/" + sessionID, "/static/style.css"} {
		if code, _ := get(t, c, ts.URL+p); code != http.StatusOK {
			t.Errorf("%s with the cookie: %d", p, code)
		}
	}
}

func TestReadOnlyAndLoopbackOnly(t *testing.T) {
	ts, c := serve(t, archive(t))
	login(t, ts, c)
	resp, err := c.Post(ts.URL+"/search", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	// A name rebound to 127.0.0.1 by a web page is refused, token or not.
	req, _ := http.NewRequest("GET", ts.URL+"/?t="+token, nil)
	req.Host = "attacker.example:80"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %d, want 403", resp.StatusCode)
	}
	u, _ := url.Parse(ts.URL)
	req, _ = http.NewRequest("GET", "http://localhost:"+u.Port()+"/?t="+token, nil)
	req.Host = "localhost:" + u.Port()
	req.URL.Host = u.Host
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Do(req); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Errorf("Host localhost: %v %v", err, resp.StatusCode)
	}
}

func TestNotFound(t *testing.T) {
	ts, c := serve(t, archive(t))
	login(t, ts, c)
	for _, p := range []string{"/session/no-such-session", "/nope", "/project", "/project?p=/nowhere", "/static/nope.css"} {
		code, body := get(t, c, ts.URL+p)
		if code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
		if strings.Contains(body, "<script") {
			t.Errorf("%s: unescaped text in %s", p, body)
		}
	}
	_, body := get(t, c, ts.URL+"/session/"+url.PathEscape(hostile))
	if strings.Contains(body, hostile) || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("404 page does not escape the id: %s", body)
	}
}

// noHostile fails when the hostile markup appears unescaped.
func noHostile(t *testing.T, page, body string) {
	t.Helper()
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(body, bad) && !strings.Contains(body, "&lt;"+strings.TrimPrefix(bad, "<")) {
			t.Errorf("%s: %q unescaped", page, bad)
		}
	}
	if n := strings.Count(body, "<script"); n > 0 {
		t.Errorf("%s: %d <script> elements", page, n)
	}
}

func TestPagesEscapeArchivedText(t *testing.T) {
	ts, c := serve(t, archive(t))
	login(t, ts, c)
	for _, p := range []string{"/", "/project?p=" + url.QueryEscape(project), "/session/" + sessionID, "/stats",
		"/search?q=" + url.QueryEscape("alert script "+hostile)} {
		code, body := get(t, c, ts.URL+p)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", p, code)
		}
		noHostile(t, p, body)
	}
	_, body := get(t, c, ts.URL+"/")
	if !strings.Contains(body, "/home/dev/&lt;proj&gt;&amp;co") || !strings.Contains(body, "p=%2fhome%2fdev%2f%3cproj%3e%26co") {
		t.Errorf("project name or link not escaped: %s", body)
	}
}

func TestSessionTimeline(t *testing.T) {
	st := archive(t)
	ts, c := serve(t, st)
	login(t, ts, c)
	code, body := get(t, c, ts.URL+"/session/"+sessionID)
	if code != http.StatusOK {
		t.Fatal(code)
	}
	chunks, _ := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: sessionID, Turn: -1})
	// The boundary comes after the chunks of window 0 and before window 1's.
	iBefore := strings.Index(body, `id="chunk-`+itoa(chunks[1].ID)+`"`)
	iBoundary := strings.Index(body, `id="compaction-1"`)
	iInjected := strings.Index(body, "SessionStart:compact")
	iAfter := strings.Index(body, `id="chunk-`+itoa(chunks[2].ID)+`"`)
	if iBefore < 0 || iBoundary < iBefore || iInjected < iBoundary || iAfter < iInjected {
		t.Errorf("timeline order: chunk1 %d, boundary %d, injection %d, chunk2 %d", iBefore, iBoundary, iInjected, iAfter)
	}
	// The summary is there, collapsed.
	if !regexp.MustCompile(`<details class="summary"><summary>Compaction summary`).MatchString(body) {
		t.Error("no collapsed compaction summary")
	}
	// The injection links to the chunks it carried, and says which are gone.
	for _, ch := range chunks[:2] {
		if !strings.Contains(body, `href="/session/`+sessionID+`#chunk-`+itoa(ch.ID)+`"`) {
			t.Errorf("no link to injected chunk %d", ch.ID)
		}
	}
	if !strings.Contains(body, "#999999 (gone)") {
		t.Error("a chunk that is gone is not marked")
	}
	if !strings.Contains(body, "injected ×1") {
		t.Error("injected chunks are not badged")
	}
}

func TestSearchHighlights(t *testing.T) {
	ts, c := serve(t, archive(t))
	login(t, ts, c)
	_, body := get(t, c, ts.URL+"/search?q="+url.QueryEscape("http response"))
	marks := regexp.MustCompile(`<mark>([^<]*)</mark>`).FindAllStringSubmatch(body, -1)
	if len(marks) == 0 {
		t.Fatalf("no highlighted hit in %s", body)
	}
	for _, m := range marks {
		if m[1] != "parseHTTPResponse" {
			t.Errorf("marked %q", m[1])
		}
	}
	if !strings.Contains(body, `href="/session/`+sessionID+`#chunk-`) {
		t.Error("hits do not link to their chunk")
	}
	_, body = get(t, c, ts.URL+"/search?q="+url.QueryEscape("zzzqqq"))
	if !strings.Contains(body, "No matches") {
		t.Error("no 'No matches' for a query without hits")
	}
}

func TestStatsCharts(t *testing.T) {
	ts, c := serve(t, archive(t))
	login(t, ts, c)
	_, body := get(t, c, ts.URL+"/stats")
	if n := strings.Count(body, "<svg"); n != 2 {
		t.Fatalf("%d charts, want 2", n)
	}
	// One bar for the session's tokens, two (p50, p95) for the hook event.
	if n := strings.Count(body, "<rect"); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
	for _, want := range []string{"300 tok", "42.0 ms", "SessionStart:compact p95"} {
		if !strings.Contains(body, want) {
			t.Errorf("stats page lacks %q", want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestSessionFamily: a session that ran subagents is listed once, with
// their count; its page lists them, linking to each, and a subagent's page
// names the session it belongs to.
func TestSessionFamily(t *testing.T) {
	ctx := context.Background()
	st := archive(t)
	for _, s := range []carryover.Session{
		{ID: sessionID + "/agent-a1b2c3", Title: "Trace the tokenizer " + hostile, Cwd: "/home/dev/wt/a1", Branch: "worktree-a1"},
		{ID: "agent-5e6f7a8b", Title: "Check the fixtures"},
	} {
		s.Parent, s.Project, s.Started, s.Updated = sessionID, project, base.Add(5*time.Minute), base.Add(2*time.Hour)
		if err := st.Apply(ctx, carryover.Batch{Session: s, Chunks: []carryover.Chunk{{Project: project, FirstLine: 1, LastLine: 2,
			Start: base, End: base, Text: "subagent step of " + s.ID, Hash: s.ID}}}); err != nil {
			t.Fatal(err)
		}
	}
	ts, c := serve(t, st)
	login(t, ts, c)
	_, body := get(t, c, ts.URL+"/")
	if !regexp.MustCompile(`<td class="num">1</td>`).MatchString(body) {
		t.Errorf("the index does not count one session: %s", body)
	}
	_, body = get(t, c, ts.URL+"/project?p="+url.QueryEscape(project))
	if strings.Contains(body, "agent-") || !strings.Contains(body, `<code>0b7e4c1a</code>`) || !strings.Contains(body, `<td class="num">2</td>`) {
		t.Errorf("project page: want the session, its 2 subagents counted, not listed: %s", body)
	}
	code, body := get(t, c, ts.URL+"/session/0b7e4c1a")
	if code != http.StatusOK || !strings.Contains(body, "Subagents (2)") {
		t.Fatalf("session page by its short id: %d %s", code, body)
	}
	link := regexp.MustCompile(`href="(/session/[^"]*agent-a1b2c3)"`).FindStringSubmatch(body)
	if link == nil || !strings.Contains(body, `href="/session/agent-5e6f7a8b"`) || strings.Contains(body, hostile) {
		t.Fatalf("subagent links (escaped titles): %s", body)
	}
	code, body = get(t, c, ts.URL+link[1])
	if code != http.StatusOK || !strings.Contains(body, "Subagent of") || !strings.Contains(body, `href="/session/`+sessionID+`"`) ||
		!strings.Contains(body, "subagent step of "+sessionID+"/agent-a1b2c3") || !strings.Contains(body, "worktree-a1") {
		t.Errorf("subagent page %s: %d %s", link[1], code, body)
	}
	for _, ref := range []string{"0b7e" + url.PathEscape("/agent-5e6f"), "0b7e/agent-5e6f"} {
		if code, body := get(t, c, ts.URL+"/session/"+ref); code != http.StatusOK || !strings.Contains(body, "Check the fixtures") {
			t.Errorf("PARENT/agent prefix %s: %d", ref, code)
		}
	}
}

// TestIndexCountsSharedChunksOnce checks that a project's chunk total
// counts a chunk a resumed session shares with the old one once.
func TestIndexCountsSharedChunksOnce(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := storetest.Batch("a", "/p", 0, 3)
	for _, b := range []carryover.Batch{a, storetest.Resumed(a, "b", 2, 4, 100)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	ts, c := serve(t, st)
	login(t, ts, c)
	_, body := get(t, c, ts.URL+"/")
	// Sessions, turns, compactions, chunks.
	row := regexp.MustCompile(`<td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>`).FindStringSubmatch(body)
	if row == nil || row[1] != "2" || row[4] != "5" {
		t.Errorf("project row %q: want 2 sessions and 5 chunks\n%s", row, body)
	}
}

// TestPagesEscapeBidiAndC1: archived text with bidirectional controls
// (which reorder what a page shows: "txt.exe" shown as "exe.txt") and C1
// controls (U+009B is a terminal's CSI) is shown with those escaped, in
// the page and in its <title>.
func TestPagesEscapeBidiAndC1(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const id = "1b7e4c1a-9d2f-4e6b-8a3c-5f1d2e3c4b5a"
	odd := "a\u202egnp.exe b\u2066c\u2069 d\u0085e \u009b31m f\u200fg"
	proj := "/home/dev/p" + "\u202e" + "x"
	b := carryover.Batch{
		Session: carryover.Session{ID: id, Project: proj, Title: "title " + odd, Started: base, Updated: base, Windows: 1, Turns: 1},
		State:   carryover.IngestState{SessionID: id, Path: "/x/s.jsonl", FileID: "f", Offset: 1, Line: 10},
		Chunks: []carryover.Chunk{{SessionID: id, Project: proj, FirstLine: 1, LastLine: 9, Start: base, End: base,
			Prompt: "prompt " + odd, Summary: "summary " + odd, Text: "User: words " + odd, Hash: "h1"}},
		Compactions: []carryover.Compaction{{SessionID: id, Window: 1, Trigger: "auto", Line: 5, Time: base, Summary: "compacted " + odd}},
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	ts, c := serve(t, st)
	login(t, ts, c)
	for _, p := range []string{"/", "/project?p=" + url.QueryEscape(proj), "/session/" + id, "/search?q=words",
		"/search?q=" + url.QueryEscape(odd)} {
		code, body := get(t, c, ts.URL+p)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", p, code)
		}
		for _, r := range []rune{0x202e, 0x2066, 0x2069, 0x0085, 0x009b} {
			if i := strings.IndexRune(body, r); i >= 0 {
				t.Errorf("%s: U+%04X raw at %q", p, r, body[max(i-60, 0):i])
			}
		}
		if p == "/session/"+id && !strings.Contains(body, `\u{202e}`) {
			t.Errorf("%s: the override is not shown escaped", p)
		}
	}
}
