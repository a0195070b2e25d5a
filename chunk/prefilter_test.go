package chunk

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// checkPrefilters checks, on one line or output, that each cheap check
// that skips a regular expression only says no where it cannot match (or
// where no match would be kept).
func checkPrefilters(t *testing.T, s string) {
	t.Helper()
	if !mayDefine(s) && defRE().MatchString(s) {
		t.Fatalf("mayDefine is false but defRE matches %q", s)
	}
	if !containsFold(s, "create") && sqlNameRE().MatchString(s) {
		t.Fatalf("containsFold(create) is false but sqlNameRE matches %q", s)
	}
	if !strings.Contains(s, "name") && namedRE().MatchString(s) {
		t.Fatalf("no name but namedRE matches %q", s)
	}
	if !quotesCapital(s) {
		for _, m := range quotedRE().FindAllStringSubmatch(s, -1) {
			if humanText(m[1] + m[2]) {
				t.Fatalf("quotesCapital is false but quotedRE finds %q in %q", m[0], s)
			}
		}
	}
	var vs []string
	for _, m := range commitRE().FindAllStringSubmatch(s, maxValues) {
		vs = addValue(vs, "commit "+m[2]+" ("+m[1]+"): "+m[3])
	}
	if ms := tallyRE().FindAllStringSubmatch(s, -1); len(ms) > 0 {
		vs = addValue(vs, ms[len(ms)-1][1])
	}
	if got := outputValues(s); !slices.Equal(got, vs) {
		t.Fatalf("outputValues(%q) = %q, the expressions on all of it find %q", s, got, vs)
	}
	var ids []string
	for _, m := range reportedIDRE().FindAllStringSubmatch(s, maxValues) {
		ids = addValue(ids, m[1]+": "+m[2])
	}
	if got := reportedIDs(s); !slices.Equal(got, ids) {
		t.Fatalf("reportedIDs(%q) = %q, the expression on all of it finds %q", s, got, ids)
	}
}

var prefilterCases = []string{
	"func parseHeader(s string) error {", "pub(crate) async fn fetch_rows() {", "export default class Widget",
	"defmodule App.Repo do", "  function  x", "CREATE UNIQUE INDEX IF NOT EXISTS users_email_idx ON users(email);",
	"CrEaTe TABLE t", `create index(:posts, [:user_id], name: "posts_user_id_index")`, `setError("Could not save the draft");`,
	`x = 'Hello there world'`, "[main 1a2b3c4] fix: handle empty input", "log\n[main 1a2b3c4] fix", "59 tests, 0 failures",
	"Tests: 3 passed, 3 total", "x\n\n  \n== 4 tests, 0 failures\n5 passing (2s)", "Tests:\n  3 passed, 3 total", "a\n-- \n*\n7 specs",
	"[main 1a2b3c4] one\n[dev 2b3c4d5] two", "x [a 1234567] no\n[b 7654321] yes", "xsession_id: abcdefgh id: 1234567", "zsession_id: abcdefgh", "é agentId: abcdefg", "a_taskId: abcdef1 run_id: 123456", "===== 5 passed in 0.12s =====", "3 specs, 0 failures", "2 examples, 0 failures", "10 passing", "agentId: a2898e3", "task_id: abcdef1",
	"", "[", "id:", `"`, `'A`,
}

func TestPrefiltersNeverSkipAMatch(t *testing.T) {
	for _, c := range prefilterCases {
		checkPrefilters(t, c)
	}
	dir := filepath.Join("..", "..", "shared", "data", "transcripts")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the shared data folder is missing under CI: %v", err)
		}
		t.Skipf("no shared transcripts beside the repository: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	n := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Lines of the files and of the text inside their JSON strings:
		// code, edits, command outputs.
		stride := 8 // a sample keeps this quick; the fuzzer does the rest
		if raceBuild {
			stride = 80
		}
		for i, l := range strings.Split(strings.ReplaceAll(string(data), `\n`, "\n"), "\n") {
			if i%stride != 0 {
				continue
			}
			if len(l) > 400 {
				l = l[:400]
			}
			checkPrefilters(t, strings.TrimSpace(l))
			n++
		}
	}
	t.Logf("%d lines checked", n)
}

func FuzzPrefilters(f *testing.F) {
	for _, c := range prefilterCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPrefilters(t, s)
	})
}

func checkShortLine(t *testing.T, s string) {
	t.Helper()
	for _, n := range []int{4, 5, 10, 80, 120, 160, 300} {
		if got, want := shortLine(s, n), shorten(oneLine(s), n); got != want {
			t.Fatalf("shortLine(%q, %d) = %q, shorten(oneLine) = %q", s, n, got, want)
		}
	}
}

func TestShortLine(t *testing.T) {
	for _, s := range append(prefilterCases, "  a\tb\n\nc  ", "\u00a0x\u0085y\u2028z\u3000", "é\xffé  \xfe", strings.Repeat("word ", 100),
		strings.Repeat("日本語 ", 60), strings.Repeat("x", 500)) {
		checkShortLine(t, s)
	}
}

func FuzzShortLine(f *testing.F) {
	f.Add("  a\tb\n\nc  ")
	f.Add(strings.Repeat("é ", 90))
	f.Fuzz(func(t *testing.T, s string) {
		checkShortLine(t, s)
	})
}
