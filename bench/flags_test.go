package bench

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/retrieve"
)

func TestSharesValue(t *testing.T) {
	var sh retrieve.RestoreShares
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.Var(SharesValue{&sh}, "shares", "")
	if err := fl.Parse([]string{"--shares", "0.1,0.2,0.3,0.25,0.15"}); err != nil {
		t.Fatal(err)
	}
	if want := (retrieve.RestoreShares{Now: 0.1, Files: 0.2, Commands: 0.3, Facts: 0.25, Steps: 0.15}); sh != want {
		t.Errorf("got %+v, want %+v", sh, want)
	}
	if got := (SharesValue{&sh}).String(); got != "0.1,0.2,0.3,0.25,0.15" {
		t.Errorf("String: %q", got)
	}
	if err := (SharesValue{&sh}).Set("0.5,0.5"); err == nil {
		t.Error("two fractions: no error")
	}
}

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	if err := CheckPaths([]string{dir}); err != nil {
		t.Error(err)
	}
	if err := CheckPaths([]string{dir, filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing path: no error")
	}
}
