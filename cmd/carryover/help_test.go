package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestHelpEveryCommand walks every command: 'help CMD' prints exactly what
// 'CMD --help' prints, on stdout with exit 0, in the one format (usage
// line, a paragraph, the flags with --db among them, examples of the
// command itself), never package flag's own dump.
func TestHelpEveryCommand(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	cmds := commandHelp()
	if len(cmds) < 25 {
		t.Fatalf("help.txt has %d commands", len(cmds))
	}
	for _, h := range cmds {
		t.Run(h.name, func(t *testing.T) {
			viaHelp, errOut, code := runCLI(t, env, "", "help", h.name)
			if code != 0 || errOut != "" {
				t.Fatalf("help %s: exit %d, stderr %q", h.name, code, errOut)
			}
			for _, flagArg := range []string{"--help", "-h"} {
				direct, errOut, code := runCLI(t, env, "", h.name, flagArg)
				if code != 0 || errOut != "" {
					t.Fatalf("%s %s: exit %d, stderr %q", h.name, flagArg, code, errOut)
				}
				if direct != viaHelp {
					t.Errorf("help %s and %s %s differ:\n%s\n----\n%s", h.name, h.name, flagArg, viaHelp, direct)
				}
			}
			blocks := strings.Split(viaHelp, "\n\n")
			if !strings.HasPrefix(blocks[0], "Usage: carryover "+h.name) || strings.Contains(blocks[0], "\n") {
				t.Errorf("help %s: first line is not the usage line: %q", h.name, blocks[0])
			}
			if len(blocks) < 3 || len(blocks[1]) < 40 || strings.HasPrefix(blocks[1], "  ") {
				t.Errorf("help %s: no description paragraph:\n%s", h.name, viaHelp)
			}
			if strings.Contains(viaHelp, "Usage of") || strings.Contains(viaHelp, "\t") {
				t.Errorf("help %s: package flag's format:\n%s", h.name, viaHelp)
			}
			last := blocks[len(blocks)-1]
			if !strings.HasPrefix(last, "Examples:\n  carryover "+h.name) {
				t.Errorf("help %s: does not end with examples of the command:\n%s", h.name, last)
			}
			if flags := strings.Contains(viaHelp, "\nFlags:\n"); flags != !noFlagSet(h.name) {
				t.Errorf("help %s: flags listed %v, want %v", h.name, flags, !noFlagSet(h.name))
			} else if flags && !strings.Contains(viaHelp, "\n  --db PATH ") {
				t.Errorf("help %s: --db not listed:\n%s", h.name, viaHelp)
			}
		})
	}
}

// TestHelpCoversCommands: every command the dispatcher knows has an entry
// in help.txt (a new command without one would have a bare help).
func TestHelpCoversCommands(t *testing.T) {
	src, err := os.ReadFile("app.go")
	if err != nil {
		t.Fatal(err)
	}
	run := string(src[strings.Index(string(src), "func (a *app) run("):])
	run = run[:strings.Index(run, "\n}\n")]
	cases := regexp.MustCompile(`case "([a-z]+)"`).FindAllStringSubmatch(run, -1)
	if len(cases) < 20 {
		t.Fatalf("found %d commands in run", len(cases))
	}
	for _, c := range append(cases, []string{"", "hook"}, []string{"", "statusline"}) {
		if h, ok := lookupHelp(c[1]); !ok || h.name != c[1] {
			t.Errorf("command %s has no entry in help.txt", c[1])
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"search", "sessions", "show", "status", "stats", "state", "get", "ingest"}
	for in, want := range map[string]string{
		"serch": "search", "sesions": "sessions", "stauts": "status", "ingets": "ingest",
		"sess": "sessions", "gte": "get", "xyzzy": "", "s": "",
	} {
		if got := suggest(in, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExitCodes: help exits 0, a usage error 2, a failure 1.
func TestExitCodes(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"help"}, 0}, {[]string{"--help"}, 0}, {[]string{"search", "--help"}, 0}, {[]string{"help", "get"}, 0},
		{[]string{"serch"}, 2}, {[]string{"search", "--limt", "3", "x"}, 2}, {[]string{"get", "x:y"}, 2}, {[]string{"--nope"}, 2},
		{[]string{"help", "serch"}, 2}, {[]string{"show", "ffffffff"}, 1},
	} {
		if _, errOut, code := runCLI(t, env, "", c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
	}
}

func TestBold(t *testing.T) {
	got := bold("Fix the NewA4 call: newa4 is gone", "newa4 fix")
	want := "\x1b[1mFix\x1b[22m the \x1b[1mNewA4\x1b[22m call: \x1b[1mnewa4\x1b[22m is gone"
	if got != want {
		t.Errorf("bold:\n got %q\nwant %q", got, want)
	}
	if got := bold("nothing here", "x zebra"); got != "nothing here" {
		t.Errorf("bold without a match: %q", got)
	}
}
