package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// demoArchive archives the built-in sample session the way Claude Code
// would have: PreCompact before its compaction, SessionStart(compact) after
// it, a prompt (recall), then Stop; every hook runs through the real CLI
// path, so injections and hook runs are recorded. It returns the store's
// path and the environment to reach it.
func demoArchive(t *testing.T) (string, func(string) string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "carryover.db")
	env := map[string]string{
		"HOME": dir, "CARRYOVER_DB": db, "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data"),
		// A loaded test machine must not turn the archive into timeouts.
		"CARRYOVER_HOOK_TIMEOUT": "60s", "CARRYOVER_SESSION_END_TIMEOUT": "60s",
	}
	getenv := func(k string) string { return env[k] }
	lines := splitLines(demoSession)
	cut, summaryEnd, cwd := compactionPoint(lines)
	if cut == len(lines) {
		t.Fatal("the sample session has no compaction")
	}
	tpath := filepath.Join(dir, demoSessionID+".jsonl")
	hookRun := func(upTo int, event string, fields map[string]any) string {
		t.Helper()
		if err := os.WriteFile(tpath, bytes.Join(lines[:upTo], nil), 0o600); err != nil {
			t.Fatal(err)
		}
		payload := map[string]any{"session_id": demoSessionID, "transcript_path": tpath, "cwd": cwd, "hook_event_name": event}
		for k, v := range fields {
			payload[k] = v
		}
		data, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := newApp(bytes.NewReader(data), &out, &errb, getenv).run(context.Background(), []string{"hook", event}); code != 0 {
			t.Fatalf("hook %s: exit %d: %s", event, code, errb.String())
		}
		return out.String()
	}
	if out := hookRun(cut, "PreCompact", map[string]any{"trigger": "auto"}); out == "" {
		t.Fatal("PreCompact printed nothing")
	}
	if out := hookRun(summaryEnd, "SessionStart", map[string]any{"source": "compact"}); !strings.Contains(out, "additionalContext") {
		t.Fatalf("SessionStart(compact) restored nothing: %q", out)
	}
	// A prompt about a step before the compaction that the restore did not
	// carry: it is recalled.
	hookRun(len(lines), "UserPromptSubmit", map[string]any{"prompt": "which float64 Cents grep did we run in internal?"})
	hookRun(len(lines), "Stop", nil)
	return db, getenv
}

// chromiumPath finds Debian's chromium, skipping the test without it
// (failing under CI, where it must be installed).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (apt-get install chromium chromium-driver)")
	}
	t.Skip("chromium is not installed: skipping the browser test (apt-get install chromium)")
	return ""
}

// startUI runs 'carryover ui' until the test ends and returns its URL.
func startUI(t *testing.T, getenv func(string) string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		done <- newApp(strings.NewReader(""), pw, &errb, getenv).run(ctx, []string{"ui", "--no-open"})
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		go io.Copy(io.Discard, pr)
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("carryover ui exited %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("carryover ui did not stop")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("carryover ui: %v (%s)", err, errb.String())
	}
	m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[0-9a-f]{32}`).FindString(line)
	if m == "" {
		t.Fatalf("carryover ui printed no URL: %q", line)
	}
	return m
}

// TestUIBrowser drives the web view in headless Chromium over the DevTools
// protocol: the projects page, a search with highlighted hits, the session
// it leads to (compaction boundary, injection rows, their chunk links) and
// the stats charts. It saves screenshots in the test's temp dir, or in
// $CARRYOVER_UI_SHOTS when set (docs/img/ui.png comes from there).
func TestUIBrowser(t *testing.T) {
	chrome := chromiumPath(t)
	db, getenv := demoArchive(t)
	// A subagent the session ran, archived as 'carryover ingest' finds it
	// beside the session's transcript, with its description.
	sub := filepath.Join(filepath.Dir(db), demoSessionID, "subagents", "agent-a7c1e09.jsonl")
	data, err := turnTranscript(demoSessionID, "/home/dev/projects/invoicer", "feat/pdf-export", "fontcache", true, 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sub, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(sub, ".jsonl")+".meta.json", []byte(`{"agentType":"Explore","description":"Find the font cache"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	if code := newApp(strings.NewReader(""), io.Discard, &errb, getenv).run(context.Background(), []string{"ingest", sub}); code != 0 {
		t.Fatalf("ingest the subagent: exit %d: %s", code, errb.String())
	}
	url := startUI(t, getenv)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first action starts the browser: no timeout on its context.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	shots := os.Getenv("CARRYOVER_UI_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name), png, 0o600)
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	location := func() string {
		t.Helper()
		l, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	// Projects: the token URL leads to the list, without the token.
	do(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("main h1")), shot("projects.png"))
	if h1, projects := text("main h1"), text("table.list tbody"); h1 != "Projects" || !strings.Contains(projects, "/home/dev/projects/invoicer") {
		t.Fatalf("projects page: %q %q", h1, projects)
	}
	if l := location(); strings.Contains(l, "t=") {
		t.Errorf("the token stays in the address bar: %s", l)
	}

	// Search: typed into the box, hits with highlighted terms.
	do(chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), "dejavu font"),
		chromedp.Submit(chromedp.CSS(`input[name="q"]`)),
		chromedp.WaitVisible(chromedp.CSS("article.hit mark")),
		shot("search.png"))
	hits := text("main")
	if !strings.Contains(hits, "PDF_FONT_DIR") || !strings.Contains(hits, "/usr/share/fonts/truetype/dejavu") {
		t.Errorf("search hits lack the font directory: %.500s", hits)
	}
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("article.hit mark"), m => m.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range marks {
		if l := strings.ToLower(m); !strings.Contains(l, "dejavu") && !strings.Contains(l, "font") {
			t.Errorf("highlighted %q, which is not a query term", m)
		}
	}
	if len(marks) < 2 {
		t.Errorf("highlights: %q", marks)
	}

	// The session, through the first hit: its timeline.
	do(chromedp.Click(chromedp.CSS("article.hit h3 a"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(".boundary")))
	if b := text(".boundary h2"); !strings.HasPrefix(b, "Compaction 1") || !strings.Contains(b, "auto") {
		t.Errorf("boundary: %q", b)
	}
	main := text("main")
	for _, want := range []string{"SessionStart:compact", "PreCompact:auto", "UserPromptSubmit",
		"restore after compaction 1: ", "PreCompact instructions for compaction 1 (auto)", "recall: BM25 ",
		// Rows show the commands their chunks ran, and overlapping chunks
		// are one row.
		"$ go test -race ./internal/pdf/...", " · 2 chunks · lines "} {
		if !strings.Contains(main, want) {
			t.Errorf("the timeline lacks %q: %.3000s", want, main)
		}
	}
	// Injected texts are collapsed; opened, they show what was injected.
	for _, inj := range []struct{ kind, head string }{
		{"recall", "## carryover: recalled from the archive"},
		{"instructions", "Keep every user constraint and preference verbatim"},
		{"restore", "## carryover: restored after compaction (session 7f3c2a9e, window 1)"},
	} {
		sel := "details.inj-" + inj.kind
		if visible, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("`+sel+` pre").checkVisibility()`)); err != nil || visible {
			t.Errorf("%s: the text is shown before it is opened (%v)", inj.kind, err)
		}
		do(chromedp.Click(chromedp.CSS(sel+" > summary"), chromedp.NodeVisible))
		if got := text(sel + " pre.injected-text"); !strings.Contains(got, inj.head) {
			t.Errorf("%s: opened text %.300q lacks %q", inj.kind, got, inj.head)
		}
		if inj.kind == "recall" {
			// The screenshot the README shows: the timeline with one
			// recall opened.
			do(shot("ui.png"))
		}
	}
	open, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("details.summary"), "open"))
	if err != nil || open.Exists {
		t.Errorf("the compaction summary is not collapsed: %v %+v", err, open)
	}
	ref := text(".injected a.chunkref")
	if !regexp.MustCompile(`^#\d+$`).MatchString(ref) {
		t.Errorf("chunk link: %q", ref)
	}

	// An injected chunk's link opens it in the timeline.
	do(chromedp.Click(chromedp.CSS(".injected a.chunkref"), chromedp.NodeVisible))
	if l := location(); !strings.HasSuffix(l, "#chunk-"+strings.TrimPrefix(ref, "#")) {
		t.Errorf("chunk link went to %s", l)
	}

	// The session lists its subagent, whose page leads back to it.
	if subs := text("section.subagents"); !strings.Contains(subs, "Subagents (1)") || !strings.Contains(subs, "agent-a7c1e09") ||
		!strings.Contains(subs, "Find the font cache") {
		t.Errorf("subagents of the session: %q", subs)
	}
	do(chromedp.Click(chromedp.CSS("section.subagents a"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("p.subagent-of")),
		shot("subagent.png"))
	if h1, of := text("main h1"), text("p.subagent-of"); h1 != "Find the font cache" || !strings.Contains(of, "I need PDF export") {
		t.Errorf("subagent page: %q, %q", h1, of)
	}
	if in := text("main"); !strings.Contains(in, "fontcache passes now") {
		t.Errorf("the subagent's timeline: %.1000s", in)
	}
	do(chromedp.Click(chromedp.CSS("p.subagent-of a"), chromedp.NodeVisible), chromedp.WaitVisible(chromedp.CSS(".boundary")))
	if l := location(); !strings.HasSuffix(l, "/session/"+demoSessionID) {
		t.Errorf("the parent link went to %s", l)
	}

	// Stats: both charts have bars.
	do(chromedp.Click(chromedp.CSS(`nav a[href="/stats"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("figure.chart svg")),
		shot("stats.png"))
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg rect").length`))
	if err != nil {
		t.Fatal(err)
	}
	// One session bar, and p50/p95 for each of the 4 hook events.
	if bars != 1+2*4 {
		t.Errorf("%d bars, want 9", bars)
	}
	if f := text("dl.figures"); !regexp.MustCompile(`Sessions\s+1\b`).MatchString(f) {
		t.Errorf("figures: %q", f)
	}
	t.Logf("screenshots in %s", shots)
}

// TestUICommand serves the demo archive through 'carryover ui' and reads it
// with a plain HTTP client: the printed URL works once, and only with it.
func TestUICommand(t *testing.T) {
	_, getenv := demoArchive(t)
	u := startUI(t, getenv)
	base := strings.TrimSuffix(u, u[strings.Index(u, "/?t="):])
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("without the token: %d, want 403", resp.StatusCode)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	for _, p := range []string{u, base + "/session/" + demoSessionID, base + "/stats"} {
		resp, err := c.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "invoicer") && !strings.Contains(string(body), "PDF") {
			t.Errorf("%s: %d %.300s", p, resp.StatusCode, body)
		}
	}
}

func TestUICommandErrors(t *testing.T) {
	_, getenv := demoArchive(t)
	var errb bytes.Buffer
	if code := newApp(strings.NewReader(""), io.Discard, &errb, getenv).run(context.Background(), []string{"ui", "--port", "70000"}); code != 2 {
		t.Errorf("--port 70000: exit %d, want 2", code)
	}
	// A port already taken: a clear error with a hint.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	errb.Reset()
	code := newApp(strings.NewReader(""), io.Discard, &errb, getenv).run(context.Background(), []string{"ui", "--no-open", "--port", port})
	if code != 1 || !strings.Contains(errb.String(), "carryover: error: ui:") || !strings.Contains(errb.String(), "hint: choose another --port") {
		t.Errorf("busy port: exit %d: %s", code, errb.String())
	}
}
