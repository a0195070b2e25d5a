package install

import (
	"slices"
	"testing"
)

// TestPathCandidates: on Windows a bare name is looked up with PATHEXT's
// extensions (carryover finds carryover.exe), a name with an extension as
// it is; elsewhere the name alone.
func TestPathCandidates(t *testing.T) {
	for _, c := range []struct {
		goos, p, pathext string
		want             []string
	}{
		{"linux", "/usr/bin/carryover", ".EXE", []string{"/usr/bin/carryover"}},
		{"windows", `C:\bin\carryover`, "", []string{`C:\bin\carryover.com`, `C:\bin\carryover.exe`, `C:\bin\carryover.bat`, `C:\bin\carryover.cmd`}},
		{"windows", `C:\bin\claude`, ".EXE;;.CMD", []string{`C:\bin\claude.exe`, `C:\bin\claude.cmd`}},
		{"windows", `C:\bin\carryover.exe`, ".EXE", []string{`C:\bin\carryover.exe`}},
	} {
		if got := pathCandidates(c.goos, c.p, c.pathext); !slices.Equal(got, c.want) {
			t.Errorf("pathCandidates(%s, %s, %q) = %q, want %q", c.goos, c.p, c.pathext, got, c.want)
		}
	}
}
