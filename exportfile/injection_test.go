package exportfile_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
)

// TestInjectionTextTravels: an export carries each injection's text and
// reason (version 2), masks a secret the store held in the text, and an
// import keeps both; a version 1 file, which has neither, still imports.
func TestInjectionTextTravels(t *testing.T) {
	ctx := context.Background()
	lines := demoLines(t)
	src := open(t, "src")
	archive(t, src, t.TempDir(), lines, len(lines))
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	in := carryover.Injection{Time: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC), SessionID: demoID, Project: "/p",
		Event: "UserPromptSubmit", Window: 1, Chars: 60, Hash: "abc",
		Text:   "## carryover: recalled from the archive\nexport GITHUB_TOKEN=" + secret + "\n",
		Reason: "recall: BM25 7.2 ≥ 2, 3 of 4 informative words (coverage 0.78 ≥ 0.5) from this session's window 0, turn 2"}
	if _, err := src.RecordInjection(ctx, in); err != nil {
		t.Fatal(err)
	}
	data := export(t, src)
	if !bytes.HasPrefix(data, []byte(`{"type":"header","format":"carryover-export","version":3,`)) {
		t.Errorf("header: %.120s", data)
	}
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("## carryover: recalled from the archive")) {
		t.Errorf("the export holds the secret, or not the text")
	}

	dst := open(t, "dst")
	if rep := importInto(t, dst, data); rep.NewInjections != 1 {
		t.Fatalf("import: %+v", rep)
	}
	got, err := dst.Injections(ctx, demoID, 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("injections after the import: %+v, %v", got, err)
	}
	if g := got[0]; g.Reason != in.Reason || !strings.HasPrefix(g.Text, "## carryover: recalled from the archive\nexport GITHUB_TOKEN=") ||
		strings.Contains(g.Text, secret) || g.Key() != in.Key() {
		t.Errorf("imported injection: %+v", g)
	}
	if rep := importInto(t, dst, data); rep.NewInjections != 0 || rep.Present != 1 {
		t.Errorf("second import: %+v", rep)
	}

	// Version 1: no text, no reason.
	v1 := `{"type":"header","format":"carryover-export","version":1,"created":"2026-01-01T00:00:00Z","carryover":"dev","redacted":true}
{"type":"injection","time":"2026-01-01T00:00:00Z","session":"s-v1","project":"/p","event":"SessionStart:compact","window":1,"chars":3900,"tokens":975,"hash":"h1","latency_us":4200}
`
	old := open(t, "old")
	rep, err := exportfile.Read(ctx, strings.NewReader(v1), old, exportfile.ReadOptions{})
	if err != nil || rep.NewInjections != 1 {
		t.Fatalf("version 1 import: %+v, %v", rep, err)
	}
	got, err = old.Injections(ctx, "s-v1", 0)
	if err != nil || len(got) != 1 || got[0].Chars != 3900 || got[0].Text != "" || got[0].Reason != "" {
		t.Errorf("version 1 injection: %+v, %v", got, err)
	}
}
