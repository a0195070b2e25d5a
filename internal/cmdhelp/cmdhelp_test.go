package cmdhelp

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	names := []string{"search", "sessions", "show", "status", "stats", "state", "get", "ingest"}
	for in, want := range map[string]string{
		"serch": "search", "sesions": "sessions", "stauts": "status", "ingets": "ingest",
		"sess": "sessions", "gte": "get", "xyzzy": "", "s": "",
	} {
		if got := Suggest(in, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBold(t *testing.T) {
	got := Bold("Fix the NewA4 call: newa4 is gone", "newa4 fix")
	want := "\x1b[1mFix\x1b[22m the \x1b[1mNewA4\x1b[22m call: \x1b[1mnewa4\x1b[22m is gone"
	if got != want {
		t.Errorf("bold:\n got %q\nwant %q", got, want)
	}
	if got := Bold("nothing here", "x zebra"); got != "nothing here" {
		t.Errorf("bold without a match: %q", got)
	}
}

func TestParseAndWrite(t *testing.T) {
	cmds := Parse("# comment\n\n## get [flags] CHUNK...\nopen hits\nPrints chunks\nby id.\nExamples:\n  prog get 12\n\n## version\nprint the version\nPrints it.\n")
	if len(cmds) != 2 || cmds[0].Name != "get" || cmds[0].Args != "[flags] CHUNK..." || cmds[0].Summary != "open hits" ||
		cmds[0].About != "Prints chunks by id." || len(cmds[0].Examples) != 1 || cmds[1].Name != "version" || cmds[1].Examples != nil {
		t.Fatalf("Parse: %+v", cmds)
	}
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.Int("limit", 20, "at most this many")
	fs.Bool("json", false, "print JSON")
	fs.String("project", "", "only this project")
	fs.Int("turn", -1, "only this turn (default: every turn)")
	var b bytes.Buffer
	Write(&b, cmds, "prog", "get", fs)
	want := `Usage: prog get [flags] CHUNK...

Prints chunks by id.

Flags:
  --json                 print JSON
  --limit N              at most this many (default 20)
  --project DIR          only this project
  --turn N               only this turn (default: every turn)

Examples:
  prog get 12
`
	if b.String() != want {
		t.Errorf("Write:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := FlagHint(fs, "flag provided but not defined: -limt"); got != "unknown flag --limt; did you mean --limit?" {
		t.Errorf("FlagHint: %q", got)
	}
	if got := FlagHint(fs, "flag provided but not defined: -zzz"); got != "unknown flag --zzz" {
		t.Errorf("FlagHint without a near flag: %q", got)
	}
	if got := wrap(strings.Repeat("word ", 30), 20, "  "); strings.Contains(got, "\n  word word word word\n") == false {
		t.Errorf("wrap: %q", got)
	}
}

func TestConfirmed(t *testing.T) {
	for answer, want := range map[string]bool{"y\n": true, "Y": true, " yes \n": true, "YES": true, "Yes\r\n": true,
		"n": false, "no\n": false, "": false, "yess": false, "ye": false, "sure": false} {
		if got := Confirmed(answer); got != want {
			t.Errorf("Confirmed(%q) = %v, want %v", answer, got, want)
		}
	}
}

// TestFlagHintErrors: package flag's errors reach the user rewritten,
// each flag named as it is typed.
func TestFlagHintErrors(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("limit", 20, "")
	fs.Bool("json", false, "")
	fs.Duration("timeout", 0, "")
	fs.Float64("min", 0, "")
	fs.Int("n", 1, "")
	fs.String("name", "", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "abc"}, `--limit wants a whole number, not "abc"`},
		{[]string{"-limit=99999999999999999999999"}, `--limit: "99999999999999999999999" is out of range`},
		{[]string{"-n", "x"}, `-n wants a whole number, not "x"`},
		{[]string{"--n", "x"}, `-n wants a whole number, not "x"`},
		{[]string{"-m"}, `unknown flag -m; did you mean -n?`},
		{[]string{"--nme"}, `unknown flag --nme; did you mean --name?`},
		{[]string{"--timeout", "5"}, `--timeout wants a duration such as 30s, 5m or 2h, not "5"`},
		{[]string{"--min", "x"}, `--min wants a number, not "x"`},
		{[]string{"--json=maybe"}, `--json takes no value, or --json=true|false, not "maybe"`},
		{[]string{"--limit"}, `--limit needs a value: --limit VALUE`},
	} {
		err := fs.Parse(tc.args)
		if err == nil {
			t.Fatalf("%v parsed", tc.args)
		}
		got := FlagHint(fs, err.Error())
		if got != tc.want {
			t.Errorf("%v: %q\n want %q", tc.args, got, tc.want)
		}
		if strings.Contains(got, "parse error") || strings.Contains(got, "for flag") {
			t.Errorf("%v: raw flag error leaks: %q", tc.args, got)
		}
	}
}
