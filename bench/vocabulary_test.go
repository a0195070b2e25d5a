package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneralVocabulary: an identifier typed in the sessions of three
// repositories is general; one in two repositories, or in three worktrees
// of one repository, is not.
func TestGeneralVocabulary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, cwd string, ids ...string) {
		var lines string
		for i, id := range ids {
			lines += fmt.Sprintf(`{"type":"assistant","uuid":"a%d","cwd":%q,"message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Grep","input":{"pattern":%q}}]}}`+"\n", i, cwd, i, i, id)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("s1", "/src/alpha", "files_with_matches", "two_repos_only", "worktree_local_name")
	write("s2", "/src/beta/sub", "files_with_matches", "two_repos_only")
	write("s3", "/src/gamma", "files_with_matches")
	write("s4", "/src/app-worktrees/feature-a", "worktree_local_name")
	write("s5", "/src/app-worktrees/feature-b", "worktree_local_name")
	general, repos, err := GeneralVocabulary([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if repos != 4 {
		t.Errorf("%d repositories, want 4 (two worktrees of one repository are one)", repos)
	}
	if !general["files_with_matches"] || general["two_repos_only"] || general["worktree_local_name"] {
		t.Errorf("general vocabulary %v: want files_with_matches only", general)
	}
	c := neededCase{Needed: []string{"files_with_matches", "two_repos_only"}, FromMemory: map[string]bool{"files_with_matches": true}}
	if got := c.withoutGeneral(general); len(got.Needed) != 1 || got.Needed[0] != "two_repos_only" || len(got.FromMemory) != 0 {
		t.Errorf("withoutGeneral: %+v", got)
	}
}
