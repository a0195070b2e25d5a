package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/mcpserver"
	"github.com/carryover-dev/carryover/sqlite"
)

const (
	demoSession = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"
	demoProject = "/home/dev/projects/invoicer"
)

// demoTranscript is the sample session shipped with the CLI: tool calls, a
// failing test and its fix, a decision, a constraint, one compaction.
// demoTranscript is absolute, as transcript paths from Claude Code are.
var demoTranscript, _ = filepath.Abs(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))

// openStore opens a fresh SQLite store in a temporary directory.
func openStore(tb testing.TB) *sqlite.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "carryover.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	return st
}

// demoStore is a store holding the demo session.
func demoStore(tb testing.TB) *sqlite.Store {
	tb.Helper()
	st := openStore(tb)
	rep, err := (&ingest.Archiver{Store: st}).File(context.Background(), demoTranscript, ingest.Options{})
	if err != nil {
		tb.Fatalf("ingest demo: %v", err)
	}
	if rep.SessionID != demoSession || rep.Project != demoProject || len(rep.Compactions) != 1 {
		tb.Fatalf("demo ingest: %+v", rep)
	}
	return st
}

// connect runs a server over st on in-memory transports and returns a
// connected client session.
func connect(tb testing.TB, st carryover.Store, opt mcpserver.Options) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	srv := mcpserver.New(st, opt)
	// The server speaks on a pipe pair; the SDK's client is the peer.
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ctx, toServer, fromServer)
		fromServer.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		tb.Fatalf("client connect: %v", err)
	}
	tb.Cleanup(func() {
		cs.Close()
		clientOut.Close()
		// The client may hang up while an answer is being written.
		if err := <-done; err != nil && !errors.Is(err, io.ErrClosedPipe) {
			tb.Errorf("serve: %v", err)
		}
	})
	return cs
}

// call calls a tool and returns its text and whether it is a tool error.
// A protocol error fails the test.
func call(tb testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	if res.StructuredContent != nil {
		tb.Errorf("%s: structured content %v: Claude Code would show it to the model instead of the text", tool, res.StructuredContent)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			tb.Fatalf("%s: content %T, want text", tool, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

// mustCall calls a tool that must succeed.
func mustCall(tb testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) string {
	tb.Helper()
	text, isErr := call(tb, cs, tool, args)
	if isErr {
		tb.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	return text
}

// bigSession stores a session of n chunks whose texts are size bytes,
// one turn per chunk, in project.
func bigSession(tb testing.TB, st carryover.Store, id, project string, n, size int) []carryover.Chunk {
	tb.Helper()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var chunks []carryover.Chunk
	for i := range n {
		line := fmt.Sprintf("step %d of %s: zebrafish output line\n", i, id)
		text := strings.Repeat(line, max(size/len(line), 1))
		chunks = append(chunks, carryover.Chunk{
			SessionID: id, Project: project, Seq: i, Turn: i, FirstLine: 10*i + 1, LastLine: 10*i + 9,
			Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i) * time.Minute),
			Prompt: fmt.Sprintf("prompt %d", i), Summary: line, Text: text, Hash: fmt.Sprintf("%s-%d", id, i),
		})
	}
	err := st.Apply(context.Background(), carryover.Batch{
		Session: carryover.Session{ID: id, Project: project, TranscriptPath: filepath.Join(project, id+".jsonl"),
			Title: "big " + id, Started: t0, Updated: t0.Add(time.Duration(n) * time.Minute), Turns: n},
		Chunks: chunks,
		State:  carryover.IngestState{SessionID: id, Path: filepath.Join(project, id+".jsonl"), FileID: "f", Offset: 1, Line: 1},
	})
	if err != nil {
		tb.Fatalf("apply: %v", err)
	}
	got, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: id, Turn: -1})
	if err != nil || len(got) != n {
		tb.Fatalf("stored chunks: %d, %v", len(got), err)
	}
	return got
}
