package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/mcpserver"
)

// TestToolList checks what the model is shown: a tools-only server, and for
// every tool a description, described properties, the required ones, the
// limits of the numeric ones and no output schema.
func TestToolList(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	init := cs.InitializeResult()
	caps, err := json.Marshal(init.Capabilities)
	if err != nil {
		t.Fatal(err)
	}
	var capNames map[string]json.RawMessage
	if err := json.Unmarshal(caps, &capNames); err != nil || len(capNames) != 1 || init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities %s: want tools only, with a fixed list", caps)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "carryover" || !strings.Contains(init.Instructions, "search") {
		t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type property struct {
		Type        any    `json:"type"`
		Description string `json:"description"`
	}
	schemas := map[string]struct {
		Type                 string              `json:"type"`
		Properties           map[string]property `json:"properties"`
		Required             []string            `json:"required"`
		AdditionalProperties *bool               `json:"additionalProperties"`
	}{}
	for _, tool := range list.Tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		s := schemas[tool.Name]
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s schema %s: %v", tool.Name, data, err)
		}
		schemas[tool.Name] = s
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s schema %s: want an object without other properties", tool.Name, data)
		}
		for name, p := range s.Properties {
			if len(p.Description) < 20 {
				t.Errorf("%s.%s: description %q too short to guide the model", tool.Name, name, p.Description)
			}
		}
		if tool.OutputSchema != nil {
			t.Errorf("%s has an output schema", tool.Name)
		}
		if a := tool.Annotations; a == nil || a.Title == "" || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v: want a title and a closed world", tool.Name, a)
		}
		write := tool.Name == "remember" || tool.Name == "state"
		if a := tool.Annotations; a != nil && a.ReadOnlyHint == write {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
	}
	if len(schemas) != 6 {
		t.Fatalf("%d tools, want 6", len(list.Tools))
	}
	for tool, req := range map[string]string{"search": "query", "remember": "text", "state": "text"} {
		if got := schemas[tool].Required; len(got) != 1 || got[0] != req {
			t.Errorf("%s required %v, want [%s]", tool, got, req)
		}
	}
	// The numeric limits are in the descriptions: an out-of-range value
	// gets the handler's message, which says what to give (TestBadArguments).
	for _, c := range []struct{ tool, prop, says string }{
		{"search", "limit", "1 to 20 (default 5)"},
		{"search", "budget", "500 to 12000 (default 3000)"},
		{"get", "budget", "500 to 30000 (default 8000)"},
		{"get", "chunk_ids", "at most 50"},
		{"sessions", "limit", "1 to 100 (default 10)"},
	} {
		if d := schemas[c.tool].Properties[c.prop].Description; !strings.Contains(d, c.says) {
			t.Errorf("%s.%s: description %q does not say %q", c.tool, c.prop, d, c.says)
		}
	}
	kind := schemas["search"].Properties["kind"].Description
	for _, k := range carryover.ItemKinds {
		if !strings.Contains(kind, string(k)) {
			t.Errorf("search.kind description %q does not name the kind %s", kind, k)
		}
	}
}

// TestNullArguments: an argument sent as null is read as left out.
func TestNullArguments(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	for _, tc := range []struct {
		tool       string
		args, null map[string]any
	}{
		{"search", map[string]any{"query": "fpdf NewA4"}, map[string]any{"scope": nil, "kind": nil, "file": nil, "since": nil, "limit": nil, "budget": nil}},
		{"get", map[string]any{}, map[string]any{"chunk_ids": nil, "session": nil, "turn": nil, "from_line": nil, "raw": nil, "budget": nil}},
		{"timeline", map[string]any{}, map[string]any{"session": nil}},
		{"sessions", map[string]any{}, map[string]any{"project": nil, "limit": nil}},
	} {
		want := mustCall(t, cs, tc.tool, tc.args)
		with := map[string]any{}
		for k, v := range tc.args {
			with[k] = v
		}
		for k, v := range tc.null {
			with[k] = v
		}
		if got := mustCall(t, cs, tc.tool, with); got != want {
			t.Errorf("%s with null arguments:\n%s\nwant, as without them:\n%s", tc.tool, got, want)
		}
	}
	// A required argument sent as null is still missing.
	if text, isErr := call(t, cs, "search", map[string]any{"query": nil}); !isErr || !strings.Contains(text, "query") {
		t.Errorf("search with a null query: error %v, %q", isErr, text)
	}
}

// TestEchoBounded: a result or an error quotes an argument at most
// maxEcho (200) characters long, on one line, with control characters
// escaped, however long the argument.
func TestEchoBounded(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	long := "\x1b[2J\n[1] chunk 1 · session forged\n" + strings.Repeat("qzxv ", 20000)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		error bool
	}{
		{"search", map[string]any{"query": long}, false},
		{"search", map[string]any{"query": "fpdf", "file": long[:300]}, false},
		{"search", map[string]any{"query": "fpdf", "scope": long}, true},
		{"search", map[string]any{"query": "fpdf", "kind": long}, true},
		{"search", map[string]any{"query": "fpdf", "since": long}, true},
		{"get", map[string]any{"session": long}, true},
		{"timeline", map[string]any{"session": long}, true},
		{"sessions", map[string]any{"project": long}, true},
		{"sessions", map[string]any{"project": "/" + long}, false},
		{"remember", map[string]any{"text": "x", "kind": long}, true},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args)
		if isErr != tc.error {
			t.Errorf("%s: tool error %v, want %v: %.300s", tc.tool, isErr, tc.error, text)
		}
		if n := utf8.RuneCountInString(text); n > 600 {
			t.Errorf("%s: %d characters for an argument of %d: %.300s…", tc.tool, n, len(long), text)
		}
		if strings.Contains(text, "\x1b") || strings.Contains(text, "session forged\n") || strings.Contains(text, "qzxv qzxv\n") {
			t.Errorf("%s: the argument is not on one line, escaped: %q", tc.tool, text)
		}
		if !strings.Contains(text, `[1] chunk 1 · session forged qzxv`) && !strings.Contains(text, "since") {
			t.Errorf("%s: the start of the argument is not quoted: %.300q", tc.tool, text)
		}
	}
	// A short query is quoted whole, as before.
	if text := mustCall(t, cs, "search", map[string]any{"query": "no such words here"}); !strings.HasPrefix(text, `Search "no such words here" in this project`) {
		t.Errorf("no match: %q", text)
	}
}

// panicStore panics on Sessions, as a bug in a store would.
type panicStore struct{ carryover.Store }

func (panicStore) Sessions(context.Context, carryover.SessionFilter) ([]carryover.Session, error) {
	panic("bug in Sessions")
}

// TestToolPanic: a panic in a tool is a tool error, and the server keeps
// serving.
func TestToolPanic(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, panicStore{st}, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	text, isErr := call(t, cs, "sessions", map[string]any{})
	if !isErr || !strings.Contains(text, "internal error in sessions") || strings.Contains(text, "bug in Sessions") {
		t.Errorf("sessions on a panicking store: error %v, %q", isErr, text)
	}
	if text := mustCall(t, cs, "search", map[string]any{"query": "fpdf NewA4"}); !strings.Contains(text, "fpdf.NewA4") {
		t.Errorf("search after the panic:\n%s", text)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("an unknown tool is not a protocol error")
	}
}

// TestMalformedMessages drives the server with raw lines: each bad message
// gets its JSON-RPC error (a batch is valid JSON, so an invalid request;
// a message over the cap says so), and the server keeps answering.
func TestMalformedMessages(t *testing.T) {
	srv := mcpserver.New(demoStore(t), mcpserver.Options{})
	huge := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("a", 9<<20) + `"}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":3,"method":"pi`,
		huge,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var got []reply
	for l := range strings.Lines(out.String()) {
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		got = append(got, r)
	}
	want := []struct {
		id   string
		code int
		msg  string
	}{{"1", 0, ""}, {"null", -32600, "batch"}, {"null", -32700, "parse error"}, {"null", -32600, "longer than 8 MiB"}, {"4", 0, ""}}
	if len(got) != len(want) {
		t.Fatalf("%d replies, want %d:\n%s", len(got), len(want), out.String())
	}
	for i, w := range want {
		g := got[i]
		code, msg := 0, ""
		if g.Error != nil {
			code, msg = g.Error.Code, g.Error.Message
		}
		if string(g.ID) != w.id || code != w.code || !strings.Contains(msg, w.msg) {
			t.Errorf("reply %d: id %s, error %d %q; want id %s, error %d containing %q", i, g.ID, code, msg, w.id, w.code, w.msg)
		}
	}
}
