package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover"
)

// maxRelatedProjects bounds the archived projects whose repository a
// failure recall checks.
const maxRelatedProjects = 200

// gitCommonDir returns the git directory shared by every checkout of the
// repository dir is in: <root>/.git for the main checkout and for a
// subdirectory of it, the main checkout's for a worktree. It returns ""
// when dir is in no repository or its .git cannot be read; it reads at
// most a few small files.
func gitCommonDir(dir string) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	d := filepath.Clean(dir)
	for range 32 {
		g := filepath.Join(d, ".git")
		fi, err := os.Lstat(g)
		if err == nil {
			if fi.IsDir() {
				return g
			}
			if !fi.Mode().IsRegular() || fi.Size() > 4096 {
				return ""
			}
			// A worktree (or a submodule): "gitdir: <path>".
			data, err := os.ReadFile(g)
			if err != nil {
				return ""
			}
			gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
			if !ok || gitdir == "" {
				return ""
			}
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(d, gitdir)
			}
			// A worktree's own git directory names the common one.
			if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil && len(c) < 4096 {
				common := strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gitdir, common)
				}
				return filepath.Clean(common)
			}
			return filepath.Clean(gitdir)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
	return ""
}

// relatedProjects returns the archived projects that are other checkouts
// of project's repository (its git worktrees, the repository's root or
// subdirectories): a failure fixed in one is the same failure in another.
func (r *run) relatedProjects(ctx context.Context, project string) ([]string, error) {
	common := gitCommonDir(project)
	if common == "" {
		return nil, nil
	}
	ss, err := r.st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{project: true}
	var out []string
	for _, s := range ss {
		if seen[s.Project] || s.Project == "" {
			continue
		}
		seen[s.Project] = true
		if len(seen) > maxRelatedProjects {
			break
		}
		if gitCommonDir(s.Project) == common {
			out = append(out, s.Project)
		}
	}
	return out, nil
}
