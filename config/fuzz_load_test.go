package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/config"
)

// FuzzProjectFile loads a configuration whose project file (a cloned
// repository's .carryover.toml, untrusted) is the fuzzer's: Load must not
// panic, and the project may not move the store, the log or anything else
// only the user's own file may set.
func FuzzProjectFile(f *testing.F) {
	f.Add([]byte("budget = 3000\nrecall = false\nredact = [\"SECRET-[0-9]+\"]\ncompact_instructions = \"keep ports\"\n"))
	f.Add([]byte("db = \"/tmp/evil.db\"\nlog = \"/tmp/evil.log\"\ntrusted_projects = [\".\"]\ndatabase_url = \"postgres://x\"\n"))
	f.Add([]byte("[table]\nx = 1\nbudget = 1e99\nredact = [\"(\", \"a{1000000}\"]\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		home := t.TempDir()
		project := t.TempDir()
		if err := os.WriteFile(filepath.Join(project, ".carryover.toml"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		env := config.Env{Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}}
		base, err := config.Load(config.Options{Env: env})
		if err != nil {
			t.Fatalf("without a project: %v", err)
		}
		c, err := config.Load(config.Options{Env: env, ProjectDir: project})
		if err != nil {
			t.Fatalf("with the project's file: %v", err)
		}
		if c.DB != base.DB || c.Log != base.Log || c.DatabaseURL != base.DatabaseURL || c.ProjectTrusted != base.ProjectTrusted ||
			c.Owner != base.Owner || c.Team != base.Team || len(c.TrustedProjects) != len(base.TrustedProjects) {
			t.Fatalf("the project's file set what only the user's may: db %q log %q url %q trusted %v owner %q team %q trusted projects %q",
				c.DB, c.Log, c.DatabaseURL, c.ProjectTrusted, c.Owner, c.Team, c.TrustedProjects)
		}
	})
}
