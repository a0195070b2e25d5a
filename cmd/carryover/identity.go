package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/retrieve"
)

// findSession resolves a session id, a unique prefix of one, or
// PARENT/AGENT for a subagent (see retrieve.FindSession).
func findSession(ctx context.Context, st carryover.Store, ref string) (carryover.Session, error) {
	s, err := retrieve.FindSession(ctx, st, ref)
	var amb *carryover.AmbiguousError
	switch {
	case errors.Is(err, carryover.ErrNotFound):
		return s, hintErr{err, "'carryover sessions' lists them, with the shortest prefix of each id that is unique"}
	case errors.As(err, &amb):
		return s, hintErr{err, "give more of the id: 'carryover sessions' shows the shortest prefix of each that is unique"}
	}
	return s, err
}

// resolveProject turns a --project argument, any path inside a project
// (its root, a subdirectory, a worktree, "."), into the archived project
// it names, or says that nothing is archived there.
func resolveProject(ctx context.Context, st carryover.Store, arg string) (string, error) {
	if name := projectdir.Base(arg); projectdir.IsClaudeFolder(name) {
		if p, ok, err := folderProject(ctx, st, name); ok || err != nil {
			return p, err
		}
	}
	abs, err := projectdir.Abs(arg)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", arg, err)
	}
	root := projectdir.Root(abs)
	p, ok, err := retrieve.FindProject(ctx, st, abs, root)
	if err != nil {
		return "", err
	}
	if !ok {
		msg := "no archived sessions in project " + root
		if arg != root {
			msg += " (from " + arg + ")"
		}
		return "", hintErr{errors.New(msg), "'carryover sessions' lists the archived sessions with their projects"}
	}
	return p, nil
}

// folderProject finds the archived project of the sessions whose
// transcripts Claude Code keeps in the folder name (C--Users-me-shop,
// under ~/.claude/projects): by the folder their transcript was archived
// from, else by the name Claude Code gives their directory, which may be
// a Windows one on any system.
func folderProject(ctx context.Context, st carryover.Store, name string) (string, bool, error) {
	all, err := st.Sessions(ctx, carryover.SessionFilter{TopLevel: true, NoCounts: true})
	if err != nil {
		return "", false, err
	}
	found := map[string]bool{}
	for _, s := range all {
		tp := s.TranscriptPath
		if i := strings.LastIndexAny(tp, `/\`); i >= 0 && projectdir.SameClaudeFolder(projectdir.Base(tp[:i]), name) ||
			s.Cwd != "" && projectdir.SameClaudeFolder(projectdir.ClaudeFolder(s.Cwd), name) ||
			projectdir.SameClaudeFolder(projectdir.ClaudeFolder(s.Project), name) {
			found[s.Project] = true
		}
	}
	switch ps := slices.Sorted(maps.Keys(found)); len(ps) {
	case 0:
		return "", false, nil
	case 1:
		return ps[0], true, nil
	default:
		return "", false, hintErr{fmt.Errorf("folder %s holds sessions of %d projects: %s", name, len(ps), strings.Join(ps, ", ")),
			"give one of them as --project"}
	}
}

// projectOrRoot is the archived project dir belongs to, else the project
// a session started in dir would be archived under.
func projectOrRoot(ctx context.Context, st carryover.Store, dir string) (string, bool, error) {
	root := projectdir.Root(dir)
	p, ok, err := retrieve.FindProject(ctx, st, dir, root)
	if err != nil || !ok {
		return root, false, err
	}
	return p, true, nil
}

// shortener shortens ids against every top-level session of the store, so
// that an id a list shows finds its session.
func shortener(ctx context.Context, st carryover.Store) (*carryover.IDShortener, error) {
	all, err := st.Sessions(ctx, carryover.SessionFilter{TopLevel: true, NoCounts: true})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.ID
	}
	return carryover.NewIDShortener(ids), nil
}
