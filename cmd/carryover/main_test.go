package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
