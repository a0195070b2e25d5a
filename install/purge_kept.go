package install

import (
	"fmt"
	"os"
	"path/filepath"

	conf "github.com/carryover-dev/carryover/config"
)

// reportKept says what a purge leaves in carryover's state directory: the
// settings backups (the user's settings as they were before carryover
// changed them, the way back if an edit went wrong) and the status line's
// per-session state, both small; the user deletes them when done.
func (in *Installer) reportKept() {
	state := conf.Env{Getenv: in.Getenv}.Dirs().State
	if state == "" {
		return
	}
	for _, k := range []struct{ dir, what string }{
		{"backups", "backups of your Claude Code settings from before carryover changed them"},
		{"statusline", "the status line's per-session state"},
	} {
		dir := filepath.Join(state, k.dir)
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			fmt.Fprintf(in.Stdout, "kept %s: %s (delete the directory when you no longer need them)\n", dir, k.what)
		}
	}
}
