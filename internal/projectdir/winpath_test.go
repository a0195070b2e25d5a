package projectdir_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/internal/projectdir"
)

// TestCleanWindows: a Windows project is one project whatever its drive
// letter's case and separators, on every system.
func TestCleanWindows(t *testing.T) {
	for in, want := range map[string]string{
		`C:\Users\me\shop`:         `C:\Users\me\shop`,
		`c:\Users\me\shop`:         `C:\Users\me\shop`,
		`c:/Users/me/shop/`:        `C:\Users\me\shop`,
		`C:\Users\\me\.\x\..\shop`: `C:\Users\me\shop`,
		`x:\03_ACG\Odoo_Docs`:      `X:\03_ACG\Odoo_Docs`,
		`c:\`:                      `C:\`,
		`c:/`:                      `C:\`,
		`C:\..\..`:                 `C:\`,
		`\\?\c:\long\path`:         `C:\long\path`,
		`\\server\share\dir\`:      `\\server\share\dir`,
		`//server/share/dir`:       `\\server\share\dir`,
		`relative\dir`:             `relative\dir`,
		`C:relative`:               `C:relative`,
		``:                         ``,
	} {
		if got := projectdir.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
		if got := projectdir.Root(in); got != want && !strings.HasPrefix(in, `\\`) {
			t.Errorf("Root(%q) = %q, want %q (no such directory here)", in, got, want)
		}
	}
	if got := projectdir.Clean("/home/me/app/"); got != filepath.Clean("/home/me/app/") {
		t.Errorf("a POSIX path: %q", got)
	}
}

func TestIsWindows(t *testing.T) {
	for p, want := range map[string]bool{
		`C:\x`: true, `c:/x`: true, `\\srv\share`: true, `C:x`: false, `C:`: false,
		`/home/me`: false, `relative`: false, `1:\x`: false, `//`: false,
	} {
		if got := projectdir.IsWindows(p); got != want {
			t.Errorf("IsWindows(%q) = %v", p, got)
		}
	}
}

// TestParentWindows walks a Windows path up to its volume's root, on
// every system, and stops there.
func TestParentWindows(t *testing.T) {
	for _, chain := range [][]string{
		{`C:\a\b\c`, `C:\a\b`, `C:\a`, `C:\`, `C:\`},
		{`\\srv\share\a\b`, `\\srv\share\a`, `\\srv\share\`, `\\srv\share\`},
	} {
		for i := 0; i+1 < len(chain); i++ {
			if got := projectdir.Parent(chain[i]); got != chain[i+1] {
				t.Errorf("Parent(%q) = %q, want %q", chain[i], got, chain[i+1])
			}
		}
	}
	// Clean's form of a share's root is its own parent.
	if root := projectdir.Clean(`\\srv\share`); projectdir.Parent(root) != root {
		t.Errorf("Parent(%q) = %q", root, projectdir.Parent(root))
	}
}

func TestAbsWindows(t *testing.T) {
	for in, want := range map[string]string{
		`X:\03_ACG\Odoo_Docs`:  `X:\03_ACG\Odoo_Docs`,
		`x:/03_ACG/Odoo_Docs/`: `X:\03_ACG\Odoo_Docs`,
	} {
		if got, err := projectdir.Abs(in); err != nil || got != want {
			t.Errorf("Abs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	wd, _ := filepath.Abs(".")
	if got, err := projectdir.Abs("."); err != nil || got != projectdir.Clean(wd) {
		t.Errorf(`Abs(".") = %q, %v; want %q`, got, err, wd)
	}
}

func TestClaudeFolder(t *testing.T) {
	for dir, want := range map[string]string{
		`C:\Users\me\shop`:       "C--Users-me-shop",
		`/home/me/app`:           "-home-me-app",
		`/Users/dain/me.next_v2`: "-Users-dain-me-next-v2",
		`X:\03_ACG\Odoo Docs`:    "X--03-ACG-Odoo-Docs",
		`/home/me/ünïcode`:       "-home-me--n-code",
	} {
		if got := projectdir.ClaudeFolder(dir); got != want {
			t.Errorf("ClaudeFolder(%q) = %q, want %q", dir, got, want)
		}
		if !projectdir.IsClaudeFolder(want) {
			t.Errorf("IsClaudeFolder(%q) = false", want)
		}
	}
	for _, name := range []string{"shop", "C:-x", "-", "--", "a/b", `C--x\y`, ""} {
		if projectdir.IsClaudeFolder(name) {
			t.Errorf("IsClaudeFolder(%q) = true", name)
		}
	}
}

func TestBase(t *testing.T) {
	for p, want := range map[string]string{
		`C:\Users\me\.claude\projects\C--Users-me-shop\`: "C--Users-me-shop",
		`/home/me/.claude/projects/-home-me-app`:         "-home-me-app",
		`C:/Users/me/.claude/projects/C--x`:              "C--x",
		`name`:                                           "name",
	} {
		if got := projectdir.Base(p); got != want {
			t.Errorf("Base(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestSameClaudeFolder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"C--Users-me", "c--users-ME", true}, {"-home-me", "-home-me", true}, {"-home-me", "-Home-me", false},
		{"C--x", "D--x", false}, {"", "", true},
	} {
		if got := projectdir.SameClaudeFolder(c.a, c.b); got != c.want {
			t.Errorf("SameClaudeFolder(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestRel(t *testing.T) {
	for _, c := range []struct {
		root, p, want string
		ok            bool
	}{
		{`C:\Users\me\shop`, `C:\Users\me\shop\internal\pdf.go`, `internal\pdf.go`, true},
		{`C:\Users\me\shop`, `c:\users\ME\shop\main.go`, `main.go`, true},
		{`C:\Users\me\shop`, `C:/Users/me/shop/web/app.ts`, `web/app.ts`, true},
		{`c:/Users/me/shop/`, `C:\Users\me\shop\main.go`, `main.go`, true},
		{`C:\`, `c:\boot.ini`, `boot.ini`, true},
		{`C:\Users\me\shop`, `C:\Users\me\shopping\x.go`, "", false},
		{`C:\Users\me\shop`, `D:\Users\me\shop\x.go`, "", false},
		{`C:\Users\me\shop`, `C:\Users\me\shop`, "", false},
		{"/home/me/app", "/home/me/app/main.go", "main.go", true},
		{"/home/me/app", "/home/me/App/main.go", "", false},
		{"/home/me/app", "/home/me/apple/x", "", false},
		{"", "/x/y", "", false},
	} {
		if got, ok := projectdir.Rel(c.root, c.p); got != c.want || ok != c.ok {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", c.root, c.p, got, ok, c.want, c.ok)
		}
	}
}

func TestTrimRoot(t *testing.T) {
	for _, c := range []struct{ s, root, want string }{
		{`Edit C:\src\shop\main.go and c:/src/shop/web/app.ts`, `C:\src\shop`, `Edit main.go and web/app.ts`},
		{`cd C:\src\shopping\x`, `C:\src\shop`, `cd C:\src\shopping\x`},
		{`C:\src\shop`, `C:\src\shop`, `C:\src\shop`},
		{`a C:\x`, `C:\`, `a C:\x`},
		{"Edit /home/me/app/main.go", "/home/me/app", "Edit main.go"},
		{"Edit /home/me/app/main.go", "/home/me/app/", "Edit main.go"},
		{"/etc/x", "/", "/etc/x"},
		{"text", "", "text"},
	} {
		if got := projectdir.TrimRoot(c.s, c.root); got != c.want {
			t.Errorf("TrimRoot(%q, %q) = %q, want %q", c.s, c.root, got, c.want)
		}
	}
}
