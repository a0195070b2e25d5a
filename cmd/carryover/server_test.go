package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// proxy stands between the hooks and the real server so that a test can
// take the server away (nothing listens on the port), make it a black hole
// (connections are accepted and never answered) and bring it back, while
// the server itself keeps its data.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	hole   bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.up()
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.down)
	return p
}

// url is u with the proxy as its host.
func (p *proxy) url(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		p.t.Fatal(err)
	}
	pu.Host = p.addr
	return pu.String()
}

func (p *proxy) up() { p.listen(false) }

// blackhole accepts connections and never answers.
func (p *proxy) blackhole() { p.down(); p.listen(true) }

func (p *proxy) listen(hole bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.ln, p.hole = ln, hole
	go p.serve(ln, hole)
}

// down closes the port and every open connection: the server is gone.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		c.Close()
		return false
	}
	p.conns = append(p.conns, c)
	return true
}

func (p *proxy) serve(ln net.Listener, hole bool) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		if hole {
			go io.Copy(io.Discard, c)
			continue
		}
		go func() {
			s, err := net.Dial("tcp", p.target)
			if err != nil || !p.track(s) {
				c.Close()
				return
			}
			go func() { io.Copy(s, c); s.Close() }()
			io.Copy(c, s)
			c.Close()
		}()
	}
}

// runCLI runs a carryover command in-process.
func (h *hookEnv) runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut, func(k string) string { return h.env[k] })
	code = a.run(context.Background(), args)
	return out.String(), errOut.String(), code
}

// timedHook runs a hook and fails when it outlives its deadline.
func (h *hookEnv) timedHook(t *testing.T, event string, ev hook.Event, stdin []byte, deadline time.Duration) string {
	t.Helper()
	start := time.Now()
	out := h.run(t, event, stdin)
	// The hook's own deadline plus process-free slack; a stalled hook
	// would take the connect or query timeouts of the driver (seconds).
	if d := time.Since(start); d > deadline+300*time.Millisecond {
		t.Errorf("hook %s took %v, deadline %v", event, d, deadline)
	}
	checkOutput(t, ev, out)
	return out
}

func restoreText(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, `"additionalContext"`)
	if i < 0 {
		t.Fatalf("no context in %q", out)
	}
	return out[i:]
}

// TestHooksSurviveServerOutage stops the server in the middle of a
// session and starts it again: hooks keep working on the local store while
// it is away (restore and recall served from there), and once it is back
// the next hook pushes the backlog, exactly once.
func TestHooksSurviveServerOutage(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDatabase(t)
	pu, _ := url.Parse(dsn)
	p := newProxy(t, pu.Host)
	h := newHookEnv(t)
	h.env["CARRYOVER_DATABASE_URL"] = p.url(dsn)
	lines := splitLines(demoSession)
	cut, summaryEnd, _ := compactionPoint(lines)
	write := func(n int) {
		if err := os.WriteFile(h.transcript, bytes.Join(lines[:n], nil), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	server, err := postgres.Open(ctx, dsn, postgres.Options{ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	// Online: the hook writes to the server only. On a loaded machine a
	// connection may take longer than the hook's 300 ms connect timeout:
	// that hook then falls back to the local store, and a later one pushes.
	write(cut / 2)
	h.untilPushed(t, server)
	online, err := server.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil || len(online) == 0 {
		t.Fatalf("server chunks after the first hook: %d, %v", len(online), err)
	}

	// The server goes away mid-session.
	p.down()
	write(cut)
	pre := h.timedHook(t, "pre-compact", hook.PreCompact, h.payloadAt(hook.PreCompact, h.transcript), 2*time.Second)
	if !strings.Contains(pre, "carryover search") {
		t.Errorf("PreCompact gave no instructions while the server was down: %q", pre)
	}
	write(summaryEnd)
	out := h.timedHook(t, "session-start", hook.SessionStart, h.payloadAt(hook.SessionStart, h.transcript), 2*time.Second)
	if ctxt := restoreText(t, out); !strings.Contains(ctxt, "undefined: fpdf.NewA4") {
		t.Errorf("restore served locally lacks the lost error:\n%s", ctxt)
	}
	recall := h.timedHook(t, "user-prompt-submit", hook.UserPromptSubmit, h.payloadAt(hook.UserPromptSubmit, h.transcript), 2*time.Second)
	if !strings.Contains(recall, "NewA4") {
		t.Errorf("recall served locally lacks the error: %q", recall)
	}
	if marks, err := spool.Pending(h.db); err != nil || len(marks) != 1 || marks[0].Session != demoID {
		t.Fatalf("pending marks %+v, %v", marks, err)
	}

	// It comes back: the next hook pushes the backlog first.
	p.up()
	write(len(lines))
	h.untilPushed(t, server)
	local, err := sqlite.Open(ctx, h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	checkPushedOnce(t, server, local)

	// Pushing again changes nothing.
	stdout, stderr, code := h.runCLI(t, "sync", "--all")
	if code != 0 || !strings.Contains(stdout, " 0 new chunks, ") || !strings.Contains(stdout, " 0 injections") {
		t.Errorf("sync --all after the push: %d %q %q", code, stdout, stderr)
	}
	checkPushedOnce(t, server, local)

	// A server that accepts connections and never answers: the session's
	// end stays inside its 1 s deadline and is archived locally.
	p.blackhole()
	h.timedHook(t, "session-end", hook.SessionEnd, h.payloadAt(hook.SessionEnd, h.transcript), time.Second)
	out = h.timedHook(t, "session-start", hook.SessionStart, h.payload("SessionStart", map[string]any{"source": "resume"}), 2*time.Second)
	_ = out // a resume of an already restored window may be empty; it must only be valid and in time
	if marks, err := spool.Pending(h.db); err != nil || len(marks) != 1 {
		t.Fatalf("pending marks after the black hole: %+v, %v", marks, err)
	}
	p.down()
	p.up()
	stdout, stderr, code = h.runCLI(t, "sync")
	if code != 0 || !strings.Contains(stdout, "synced 1 session") {
		t.Errorf("sync: %d %q %q", code, stdout, stderr)
	}
	if marks, _ := spool.Pending(h.db); len(marks) != 0 {
		t.Errorf("sync left marks: %+v", marks)
	}
	checkPushedOnce(t, server, local)
}

// untilPushed runs Stop hooks until one reached the server with nothing
// left pending (at most 10).
func (h *hookEnv) untilPushed(t *testing.T, server carryover.Store) {
	t.Helper()
	for i := 0; ; i++ {
		h.timedHook(t, "stop", hook.Stop, h.payloadAt(hook.Stop, h.transcript), 2*time.Second)
		marks, err := spool.Pending(h.db)
		if err != nil {
			t.Fatal(err)
		}
		_, serr := server.Session(context.Background(), demoID)
		if len(marks) == 0 && serr == nil {
			return
		}
		if i == 9 {
			log, _ := os.ReadFile(h.env["CARRYOVER_LOG"])
			t.Fatalf("no hook reached the server: pending %+v, %v\n%s", marks, serr, log)
		}
	}
}

// checkPushedOnce checks that the server holds everything of the demo
// session the local store holds, each chunk and audit record once.
func checkPushedOnce(t *testing.T, server, local carryover.Store) {
	t.Helper()
	ctx := context.Background()
	sc, err := server.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	lc, err := local.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, c := range sc {
		have[c.Hash]++
		if have[c.Hash] > 1 {
			t.Errorf("chunk %s is on the server twice", c.Hash)
		}
	}
	for _, c := range lc {
		if have[c.Hash] == 0 {
			t.Errorf("local chunk %d (%s) was not pushed", c.Seq, c.Hash)
		}
	}
	si, err := server.Injections(ctx, demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	li, err := local.Injections(ctx, demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, in := range si {
		k := fmt.Sprint(in.Event, in.Hash, in.Time.UnixMilli())
		if seen[k]++; seen[k] > 1 {
			t.Errorf("injection %s is on the server twice", k)
		}
	}
	for _, in := range li {
		if seen[fmt.Sprint(in.Event, in.Hash, in.Time.UnixMilli())] == 0 {
			t.Errorf("local injection %s was not pushed", in.Event)
		}
	}
	ss, err := server.Session(ctx, demoID)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := local.Session(ctx, demoID)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Windows < ls.Windows || ss.Turns < ls.Turns {
		t.Errorf("server session %+v is behind the local one %+v", ss, ls)
	}
}

// TestMigrateRoundTrip copies a local archive to the server and back.
func TestMigrateRoundTrip(t *testing.T) {
	dsn := storetest.PostgresDatabase(t)
	h := newHookEnv(t)
	if _, stderr, code := h.runCLI(t, "ingest", h.transcript); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := h.runCLI(t, "note", "--session", demoID, "invoices are rendered in cents"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := h.runCLI(t, "migrate", "--to", dsn)
	if code != 0 || !strings.Contains(stdout, "migrated 1 session: 13 new chunks") || !strings.Contains(stdout, "1 note") {
		t.Fatalf("migrate --to: %d %q %q", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("progress written to a pipe: %q", stderr)
	}
	stdout, _, code = h.runCLI(t, "migrate", "--to", dsn)
	if code != 0 || !strings.Contains(stdout, "1 session: 0 new chunks, 0 items, 0 compactions, 0 notes") {
		t.Errorf("second migrate --to: %d %q", code, stdout)
	}
	back := h.dir + "/back.db"
	stdout, stderr, code = h.runCLI(t, "--db", back, "migrate", "--from", dsn)
	if code != 0 || !strings.Contains(stdout, "13 new chunks") {
		t.Fatalf("migrate --from: %d %q %q", code, stdout, stderr)
	}
	want, _, _ := h.runCLI(t, "search", "fpdf NewA4 error", "--json")
	got, _, _ := h.runCLI(t, "--db", back, "search", "fpdf NewA4 error", "--json")
	if want != got || !strings.Contains(want, "NewA4") {
		t.Errorf("search differs after the round trip:\n got  %s\n want %s", got, want)
	}
	h.env["CARRYOVER_DATABASE_URL"] = dsn
	onServer, stderr, code := h.runCLI(t, "search", "fpdf NewA4 error", "--limit", "3")
	if code != 0 || !strings.Contains(onServer, "NewA4") {
		t.Errorf("search on the server: %d %q %q", code, onServer, stderr)
	}
}
