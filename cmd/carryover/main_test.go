package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(removingBinary{m}, map[string]func(){
		"carryover": func() {
			os.Exit(newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).run(context.Background(), os.Args[1:]))
		},
	})
}

// TestScripts drives the binary with the .txtar scripts in testdata/script.
// Each script gets $HOME, the sample session split at its compaction
// (demo-pre.jsonl, demo-full.jsonl) and a payload command.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_DATA_HOME", "")
			env.Setenv("XDG_STATE_HOME", "")
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("CARRYOVER_DB", "")
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			lines := splitLines(demoSession)
			cut, summaryEnd, _ := compactionPoint(lines)
			if err := os.WriteFile(filepath.Join(env.WorkDir, "demo-pre.jsonl"), bytes.Join(lines[:cut], nil), 0o600); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(env.WorkDir, "demo-compacted.jsonl"), bytes.Join(lines[:summaryEnd], nil), 0o600); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(env.WorkDir, "demo-full.jsonl"), demoSession, 0o600)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"payload":    cmdPayload,
			"hookjson":   cmdHookJSON,
			"installbin": cmdInstallBin,
			"nobytes":    cmdNoBytes,
			"ftscount":   cmdFTSCount,
			"rawprobe":   cmdRawProbe,
			"noprobe":    cmdNoProbe,
			"transcript": cmdTranscript,
		},
	})
}

// cmdPayload writes a hook payload shaped like Claude Code's:
//
//	payload FILE EVENT TRANSCRIPT [key=value...]
func cmdPayload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: payload FILE EVENT TRANSCRIPT [key=value...]")
	}
	p := map[string]any{
		"session_id":      "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53",
		"transcript_path": ts.MkAbs(args[2]),
		"cwd":             ts.Getenv("WORK"),
		"hook_event_name": args[1],
	}
	for _, kv := range args[3:] {
		k, v, ok := bytes.Cut([]byte(kv), []byte("="))
		if !ok {
			ts.Fatalf("bad key=value %q", kv)
		}
		if string(v) == "null" {
			p[string(k)] = nil
		} else {
			p[string(k)] = string(v)
		}
	}
	data, err := json.Marshal(p)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o600))
}

// cmdTranscript writes (or appends) one turn of a transcript (see
// turnTranscript):
//
//	transcript FILE session=ID cwd=DIR word=WORD [branch=B] [sidechain=true] [minute=N] [append=true]
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: transcript FILE session=ID cwd=DIR word=WORD [branch=B] [sidechain=true] [minute=N] [append=true]")
	}
	kv := map[string]string{"branch": "main", "minute": "0"}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("bad key=value %q", a)
		}
		kv[k] = v
	}
	minute, err := strconv.Atoi(kv["minute"])
	ts.Check(err)
	data, err := turnTranscript(kv["session"], kv["cwd"], kv["branch"], kv["word"], kv["sidechain"] == "true", minute)
	ts.Check(err)
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if kv["append"] == "true" {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o600)
	ts.Check(err)
	_, err = f.Write(data)
	ts.Check(err)
	ts.Check(f.Close())
}

// turnTranscript is one turn of a transcript, shaped like Claude Code's: a
// prompt, a Bash call, its result and an answer, every line with the
// session id, cwd, branch and sidechain flag given, from the given minute
// of a fixed hour.
func turnTranscript(session, cwd, branch, word string, sidechain bool, minute int) ([]byte, error) {
	t0 := time.Date(2026, 1, 5, 10, minute, 0, 0, time.UTC)
	var out bytes.Buffer
	n := 0
	line := func(v map[string]any) error {
		n++
		v["sessionId"], v["cwd"], v["gitBranch"], v["isSidechain"] = session, cwd, branch, sidechain
		v["userType"], v["version"] = "external", "2.1.100"
		v["uuid"] = fmt.Sprintf("%s-%s-%d", session, word, n)
		v["timestamp"] = t0.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano)
		data, err := json.Marshal(v)
		out.Write(append(data, '\n'))
		return err
	}
	err := errors.Join(
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Make the " + word + " tests pass"}}),
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + word, "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "tu_" + word, "name": "Bash", "input": map[string]any{"command": "go test ./" + word + "/..."}}}}}),
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "tu_" + word, "content": "ok  example.com/" + word}}}}),
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + word + "2", "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": word + " passes now."}}}}),
	)
	return out.Bytes(), err
}

// cmdInstallBin writes an executable "carryover" at PATH that runs this
// test's carryover command, as an installed binary would:
//
//	installbin PATH
func cmdInstallBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: installbin PATH")
	}
	var self string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(dir, "carryover")); err == nil && !fi.IsDir() {
			self = filepath.Join(dir, "carryover")
			break
		}
	}
	if self == "" {
		ts.Fatalf("carryover is not on PATH")
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte("#!/bin/sh\nexec '"+self+"' \"$@\"\n"), 0o755))
}

// cmdHookJSON checks that the last stdout is exactly one hook output object
// for the event, and with a second argument that its context contains it:
//
//	hookjson EVENT [SUBSTRING]
func cmdHookJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: hookjson EVENT [SUBSTRING]")
	}
	out := ts.ReadFile("stdout")
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("more than one JSON value")
	}
	if err == nil && v.HookSpecificOutput.HookEventName != args[0] {
		err = fmt.Errorf("hookEventName %q, want %q", v.HookSpecificOutput.HookEventName, args[0])
	}
	if err == nil && v.HookSpecificOutput.AdditionalContext == "" {
		err = fmt.Errorf("empty additionalContext")
	}
	if err == nil && len(args) > 1 && !bytes.Contains([]byte(v.HookSpecificOutput.AdditionalContext), []byte(args[1])) {
		err = fmt.Errorf("context does not contain %q", args[1])
	}
	if neg {
		if err == nil {
			ts.Fatalf("stdout is a valid %s hook output", args[0])
		}
		return
	}
	if err != nil {
		ts.Fatalf("stdout is not a valid hook output: %v\n%s", err, out)
	}
}
