package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// The MCP transport here is JSON-RPC 2.0 as newline-delimited JSON on a
// stream pair (stdio), written out rather than taken from the SDK: every
// hook process runs this binary, and the SDK's packages (encoding/gob,
// JSON Schema, OAuth) take 2-3 ms to initialise at each start. Only what a
// tools-only server needs is implemented: initialize, ping, tools/list,
// tools/call.

// Server is carryover's MCP server.
type Server struct {
	s     *server
	tools []tool
}

// tool is one tool as tools/list shows it, with its handler.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations annotations    `json:"annotations"`
	call        func(context.Context, json.RawMessage) (string, error)
}

// annotations are the MCP tool annotations (hints for the client).
type annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// protocolVersions are the MCP revisions this server speaks, newest first.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// maxMessage caps one inbound message.
const maxMessage = 8 << 20

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// Serve answers requests read from r on w, one at a time, until r ends
// (nil) or ctx is done.
func (srv *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, oversized, err := readMessage(br)
		if oversized || len(bytes.TrimSpace(line)) > 0 {
			resp := &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{codeInvalidRequest, fmt.Sprintf("message longer than %d MiB, skipped", maxMessage>>20)}}
			if !oversized {
				resp = srv.handle(ctx, line)
			}
			if resp != nil {
				data, merr := json.Marshal(resp)
				if merr != nil {
					return fmt.Errorf("encode response: %w", merr)
				}
				bw.Write(data)
				bw.WriteByte('\n')
				if ferr := bw.Flush(); ferr != nil {
					return fmt.Errorf("write response: %w", ferr)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readMessage reads one line; an oversized one is skipped whole, without
// holding more than maxMessage of it.
func readMessage(br *bufio.Reader) (line []byte, oversized bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !oversized && len(line)+len(frag) <= maxMessage {
			line = append(line, frag...)
		} else {
			line, oversized = nil, true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, oversized, err
	}
}

// handle answers one message; notifications and responses get nil.
func (srv *Server) handle(ctx context.Context, line []byte) *response {
	// MCP dropped JSON-RPC batches (2025-06-18) and no client sends them:
	// a batch is valid JSON, so it is an invalid request, not a parse error.
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' && json.Valid(t) {
		return &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{codeInvalidRequest, "batches are not supported: send one request a line"}}
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{codeParse, "parse error: " + err.Error()}}
	}
	if req.Method == "" {
		if len(req.ID) == 0 {
			return &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{codeInvalidRequest, "not a request"}}
		}
		return nil // a response to a request of ours: we send none
	}
	if len(req.ID) == 0 {
		return nil // notifications: initialized, cancelled, ...
	}
	resp := &response{JSONRPC: "2.0", ID: req.ID}
	result, rerr := srv.dispatch(ctx, req)
	if rerr != nil {
		resp.Error = rerr
	} else {
		resp.Result = result
	}
	return resp
}

func (srv *Server) dispatch(ctx context.Context, req request) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		version := protocolVersions[0]
		if slices.Contains(protocolVersions, p.ProtocolVersion) {
			version = p.ProtocolVersion
		}
		return map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": "carryover", "version": srv.s.opt.Version},
			"instructions":    instructions,
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": srv.tools}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{codeInvalidParams, "invalid params: " + err.Error()}
		}
		i := slices.IndexFunc(srv.tools, func(t tool) bool { return t.Name == p.Name })
		if i < 0 {
			return nil, &rpcError{codeInvalidParams, fmt.Sprintf("unknown tool %q", p.Name)}
		}
		text, err := srv.callSafely(ctx, srv.tools[i], p.Arguments)
		isError := err != nil
		if isError {
			text = err.Error()
		}
		return map[string]any{
			"content": []map[string]any{{"type": "text", "text": text}},
			"isError": isError,
		}, nil
	}
	return nil, &rpcError{codeMethodNotFound, fmt.Sprintf("method %q not found", req.Method)}
}

// callSafely runs a tool, turning a panic into a tool error: the server
// keeps serving.
func (srv *Server) callSafely(ctx context.Context, t tool, args json.RawMessage) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			srv.s.log.Error("mcp tool panic", "tool", t.Name, "panic", r)
			err = fmt.Errorf("internal error in %s; see carryover's log", t.Name)
		}
	}()
	return t.call(ctx, args)
}

// schemaOf is the JSON Schema of a tool's argument struct: its json names,
// jsonschema descriptions, and fields without omitempty required.
func schemaOf(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := typeSchema(f.Type)
		if d := f.Tag.Get("jsonschema"); d != "" {
			p["description"] = d
		}
		props[name] = p
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func typeSchema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Struct:
		return schemaOf(t)
	}
	return map[string]any{}
}
