package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/internal/cmdhelp"
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
		t.Run(h.Name, func(t *testing.T) {
			viaHelp, errOut, code := runCLI(t, env, "", "help", h.Name)
			if code != 0 || errOut != "" {
				t.Fatalf("help %s: exit %d, stderr %q", h.Name, code, errOut)
			}
			for _, flagArg := range []string{"--help", "-h"} {
				direct, errOut, code := runCLI(t, env, "", h.Name, flagArg)
				if code != 0 || errOut != "" {
					t.Fatalf("%s %s: exit %d, stderr %q", h.Name, flagArg, code, errOut)
				}
				if direct != viaHelp {
					t.Errorf("help %s and %s %s differ:\n%s\n----\n%s", h.Name, h.Name, flagArg, viaHelp, direct)
				}
			}
			blocks := strings.Split(viaHelp, "\n\n")
			if !strings.HasPrefix(blocks[0], "Usage: carryover "+h.Name) || strings.Contains(blocks[0], "\n") {
				t.Errorf("help %s: first line is not the usage line: %q", h.Name, blocks[0])
			}
			if len(blocks) < 3 || len(blocks[1]) < 40 || strings.HasPrefix(blocks[1], "  ") {
				t.Errorf("help %s: no description paragraph:\n%s", h.Name, viaHelp)
			}
			if strings.Contains(viaHelp, "Usage of") || strings.Contains(viaHelp, "\t") {
				t.Errorf("help %s: package flag's format:\n%s", h.Name, viaHelp)
			}
			last := blocks[len(blocks)-1]
			if !strings.HasPrefix(last, "Examples:\n  carryover "+h.Name) {
				t.Errorf("help %s: does not end with examples of the command:\n%s", h.Name, last)
			}
			if flags := strings.Contains(viaHelp, "\nFlags:\n"); flags != !noFlagSet(h.Name) {
				t.Errorf("help %s: flags listed %v, want %v", h.Name, flags, !noFlagSet(h.Name))
			} else if flags && !strings.Contains(viaHelp, "\n  --db PATH ") {
				t.Errorf("help %s: --db not listed:\n%s", h.Name, viaHelp)
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
		if h, ok := cmdhelp.Lookup(commandHelp(), c[1]); !ok || h.Name != c[1] {
			t.Errorf("command %s has no entry in help.txt", c[1])
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
		{[]string{"help", "serch"}, 2}, {[]string{"show", "ffffffff"}, 1}, {[]string{"show", "--turn", "-2", "x"}, 2},
	} {
		if _, errOut, code := runCLI(t, env, "", c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
	}
}

// TestErrorsShowControlsEscaped: a usage error or a failure quoting what
// was typed never writes a terminal control to stderr.
func TestErrorsShowControlsEscaped(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, args := range [][]string{
		{"search", "--\x1b[31mred", "x"},
		{"\x1b]0;title\x07"},
		{"show", "\x1b[2Jabc"},
	} {
		_, errOut, code := runCLI(t, env, "", args...)
		if code == 0 {
			t.Errorf("%q: exit 0", args)
		}
		if strings.ContainsAny(errOut, "\x1b\x07") {
			t.Errorf("%q: stderr holds a raw control: %q", args, errOut)
		}
		if !strings.Contains(errOut, `\e`) && !strings.Contains(errOut, `\x1b`) {
			t.Errorf("%q: stderr does not show the escape: %q", args, errOut)
		}
	}
}

// TestHelpFlagText: no flag's help shows a sentinel default ("show --turn"
// said "(default -1)"), and none names a placeholder other than the one
// its value is shown with ("export -o PATH" said "write to FILE").
func TestHelpFlagText(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	placeholders := map[string]bool{"FILE": true, "PATH": true, "DIR": true, "ID": true, "CMD": true, "N": true, "DURATION": true}
	for _, h := range commandHelp() {
		out, _, _ := runCLI(t, env, "", "help", h.Name)
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			if strings.Contains(line, "(default -") {
				t.Errorf("help %s: a negative default says nothing: %q", h.Name, line)
			}
			f := strings.Fields(line)
			own := ""
			if len(f) > 1 && placeholders[f[1]] {
				own = f[1]
			}
			for _, w := range f[1:] {
				if w = strings.Trim(w, ".,:;()"); placeholders[w] && w != own {
					t.Errorf("help %s: %s shows its value as %q but its text says %s: %q", h.Name, f[0], own, w, line)
				}
			}
		}
	}
}
