package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/transcript"
)

func TestRunRestoresWhatTheSummaryLost(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = Run(context.Background(), &out, Options{Sample: sample, Budget: 4000, Handler: &hook.Handler{}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	text := out.String()
	lines := transcript.SplitLines(sample)
	cut, _, _ := CompactionPoint(lines)
	if cut == len(lines) {
		t.Fatal("the sample has no compaction")
	}
	for _, want := range []string{
		"carryover demo: built-in sample session (" + itoa(len(lines)) + " lines, compaction at line " + itoa(cut+1) + ")",
		"▶ PreCompact hook: archived " + itoa(cut) + " lines",
		"▶ The summary Claude Code kept",
		"▶ SessionStart(compact) hook: restored",
		"## carryover: restored after compaction (session 7f3c2a9e",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	m := regexp.MustCompile(`gives back that the summary does not state: (\d+) exact details`).FindStringSubmatch(text)
	if m == nil || m[1] == "0" {
		t.Errorf("no details the summary lacks:\n%s", text)
	}
	// The project's root is the restore's heading, not a detail it adds.
	_, _, cwd := CompactionPoint(lines)
	_, details, _ := strings.Cut(text, "exact details, e.g. ")
	details, _, _ = strings.Cut(details, "\n")
	if root := strings.TrimPrefix(cwd, "/"); cwd == "" || strings.Contains(details, root) {
		t.Errorf("the project root %q is listed as a detail: %s", cwd, details)
	}
}

func TestRunKeepsItsFilesOnlyWhenAsked(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	for _, keep := range []bool{false, true} {
		var out bytes.Buffer
		if err := Run(context.Background(), &out, Options{Sample: sample, Budget: 4000, Keep: keep, Handler: &hook.Handler{}}); err != nil {
			t.Fatal(err)
		}
		left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "carryover-demo-*", "carryover.db"))
		if keep != (len(left) == 1) {
			t.Errorf("keep=%v: stores left behind: %v", keep, left)
		}
	}
}

func TestCompactionPointWithoutBoundary(t *testing.T) {
	lines := transcript.SplitLines([]byte(`{"type":"user","cwd":"/p","message":{"role":"user","content":"hi"}}` + "\n" + `{"type":"assistant"}`))
	cut, end, cwd := CompactionPoint(lines)
	if len(lines) != 2 || cut != 2 || end != 2 || cwd != "/p" {
		t.Errorf("got %d lines, cut %d, end %d, cwd %q", len(lines), cut, end, cwd)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRunLabelsARenamedTranscriptByItsSession: a --transcript not named
// <session id>.jsonl is labelled by the session id inside it.
func TestRunLabelsARenamedTranscriptByItsSession(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "my copy.jsonl")
	if err := os.WriteFile(path, sample, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), &out, Options{Transcript: path, Budget: 4000, Handler: &hook.Handler{}}); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	if text := out.String(); !strings.Contains(text, "(session 7f3c2a9e") || strings.Contains(text, "session my copy") {
		t.Errorf("the restore is not labelled by the session id inside the file:\n%s", text)
	}
}
