package bench

import (
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover/ident"
)

// GeneralRepositories is how many different repositories an identifier
// must occur in to count as general vocabulary rather than memory.
const GeneralRepositories = 3

// GeneralVocabulary returns the specific identifiers that occur in the
// sessions of GeneralRepositories or more different repositories among the
// transcripts under paths (walked as NeededTranscripts does), and how many
// repositories there were. A session's repository is its first working
// directory, cut after a component naming worktrees: the worktrees of one
// repository are one.
func GeneralVocabulary(paths []string) (map[string]bool, int, error) {
	files, err := NeededTranscripts(paths)
	if err != nil {
		return nil, 0, err
	}
	repos := map[string]map[string]bool{} // identifier → repositories
	seenRepo := map[string]bool{}
	for _, f := range files {
		_, es, err := readEntries(f)
		if err != nil {
			return nil, 0, err
		}
		repo := ""
		ids := map[string]bool{}
		for _, e := range es {
			if repo == "" && e.Cwd != "" {
				repo = repositoryOf(e.Cwd)
			}
			if e.Type != "user" && e.Type != "assistant" {
				continue
			}
			t, _ := rendered(e)
			for _, id := range ident.All(t) {
				if ident.Specific(id) {
					ids[id] = true
				}
			}
		}
		if repo == "" {
			repo = filepath.Dir(f)
		}
		seenRepo[repo] = true
		for id := range ids {
			if repos[id] == nil {
				repos[id] = map[string]bool{}
			}
			repos[id][repo] = true
		}
	}
	general := map[string]bool{}
	for id, rs := range repos {
		if len(rs) >= GeneralRepositories {
			general[id] = true
		}
	}
	return general, len(seenRepo), nil
}

// repositoryOf is the repository a working directory belongs to: the
// directory up to and including a component that names worktrees
// ("app-worktrees/feature-x", ".claude/worktrees/agent-1"), else itself.
func repositoryOf(cwd string) string {
	cwd = filepath.ToSlash(filepath.Clean(cwd))
	parts := strings.Split(cwd, "/")
	for i, p := range parts {
		if strings.Contains(strings.ToLower(p), "worktree") {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return cwd
}

// withoutGeneral returns the case with general vocabulary left out of
// what it needed.
func (c neededCase) withoutGeneral(general map[string]bool) neededCase {
	out := c
	out.Needed = nil
	out.FromMemory = map[string]bool{}
	for _, id := range c.Needed {
		if general[id] {
			continue
		}
		out.Needed = append(out.Needed, id)
		if c.FromMemory[id] {
			out.FromMemory[id] = true
		}
	}
	return out
}
