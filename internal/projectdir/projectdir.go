// Package projectdir decides which project a working directory belongs to:
// the root of its git repository — for a linked worktree, the main
// worktree's root, so that every worktree of a repository is one project —
// else the directory itself. It reads a few small files and never runs git.
package projectdir

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFile bounds what is read of a .git or commondir file: both hold one
// short line.
const maxGitFile = 4096

// Root returns the project of dir, an absolute directory (it is cleaned):
//
//   - the nearest directory at or above dir that holds a .git directory;
//   - or that holds a .git file: for a linked worktree (its gitdir is
//     REPO/.git/worktrees/NAME) the main worktree's root, named by the
//     commondir file there; for anything else (a submodule) that
//     directory;
//   - dir itself when no repository holds it, when it does not exist (an
//     old transcript's directory) or when it is not absolute.
//
// The home directory is never taken as a repository root found from below
// it: a home directory kept in git (dotfiles) would otherwise swallow
// every project under it.
func Root(dir string) string {
	project, _ := Roots(dir)
	return project
}

// Roots returns Root(dir), the project, and the root of the working tree
// dir is in: the directory that holds the .git entry Root found (for a
// linked worktree, that worktree, where its files are and its paths are
// shown relative to), else the project itself. Both are in Clean's form: a
// Windows path's drive letter is upper case, on any system.
func Roots(dir string) (project, work string) {
	project, work = roots(Clean(dir))
	return Clean(project), Clean(work)
}

func roots(dir string) (project, work string) {
	if dir == "" || !filepath.IsAbs(dir) {
		return dir, dir
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return dir, dir
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		home = Clean(home)
	}
	for d := dir; ; {
		if d != home || d == dir {
			if root, ok := repoRoot(d); ok {
				return root, d
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return dir, dir
		}
		d = up
	}
}

// repoRoot reports the project root when d holds a .git entry.
func repoRoot(d string) (string, bool) {
	git := filepath.Join(d, ".git")
	fi, err := os.Lstat(git)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return d, true
	}
	if !fi.Mode().IsRegular() {
		return "", false
	}
	gitdir, err := readLine(git, "gitdir:")
	if err != nil || gitdir == "" {
		return d, true // a .git file git would reject: still a repository's place
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(d, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	if filepath.Base(filepath.Dir(gitdir)) != "worktrees" {
		return d, true // a submodule or a separated git dir: its own repository
	}
	common := filepath.Dir(filepath.Dir(gitdir)) // REPO/.git, when commondir says nothing else
	if c, err := readLine(filepath.Join(gitdir, "commondir"), ""); err == nil && c != "" {
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitdir, c)
		}
		common = filepath.Clean(c)
	}
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common), true
	}
	// A bare repository's worktrees: the repository names the project.
	return common, true
}

// readLine reads the first line of a small file and returns what follows
// prefix on it, trimmed.
func readLine(path, prefix string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(buf, []byte("\n"))
	s := strings.TrimSpace(string(line))
	if prefix != "" {
		rest, ok := strings.CutPrefix(s, prefix)
		if !ok {
			return "", errNoPrefix
		}
		s = strings.TrimSpace(rest)
	}
	return s, nil
}

var errNoPrefix = errors.New("unexpected content")
