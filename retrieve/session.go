package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
)

// FindSession resolves what a person or a model gives to name a session:
// an exact id, a unique prefix of one, or "PARENT/AGENT" for one of a
// session's subagents (PARENT any reference of the parent, AGENT a prefix
// of the subagent's name, "agent-…"). A parent and its subagents are one
// family: a prefix they all share names the parent, so the id a session
// list shows, however short, never turns ambiguous once the session ran
// subagents. A prefix that only subagents of one parent share names the
// subagent when there is one. An unknown reference yields an error
// wrapping carryover.ErrNotFound; one of several families a
// *carryover.AmbiguousError.
func FindSession(ctx context.Context, st carryover.Store, ref string) (carryover.Session, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return carryover.Session{}, notFound("no session given")
	}
	if s, err := st.Session(ctx, ref); err == nil {
		return s, nil
	} else if !errors.Is(err, carryover.ErrNotFound) {
		return carryover.Session{}, err
	}
	if parentRef, agentRef, ok := strings.Cut(ref, "/"); ok {
		return findSubagent(ctx, st, ref, parentRef, agentRef)
	}
	cands, err := st.Sessions(ctx, carryover.SessionFilter{IDPrefix: ref})
	if err != nil {
		return carryover.Session{}, fmt.Errorf("sessions: %w", err)
	}
	if len(cands) == 0 {
		return carryover.Session{}, notFound(fmt.Sprintf("no archived session %q", ref))
	}
	// One entry per family, the parent's own row when it matched.
	var families []carryover.Session
	at := map[string]int{}
	for _, c := range cands {
		root := c.ID
		if c.Parent != "" {
			root = c.Parent
		}
		i, ok := at[root]
		if !ok {
			at[root] = len(families)
			families = append(families, c)
			continue
		}
		if c.ID == root {
			families[i] = c
		}
	}
	if len(families) > 1 {
		return carryover.Session{}, &carryover.AmbiguousError{Ref: ref, Matches: families}
	}
	if s := families[0]; s.Parent == "" || len(cands) == 1 {
		return s, nil
	}
	// Only subagents of one parent matched, and several of them.
	return carryover.Session{}, &carryover.AmbiguousError{Ref: ref, Matches: cands}
}

// findSubagent resolves "PARENT/AGENT".
func findSubagent(ctx context.Context, st carryover.Store, ref, parentRef, agentRef string) (carryover.Session, error) {
	parent, err := FindSession(ctx, st, parentRef)
	if err != nil {
		return carryover.Session{}, err
	}
	subs, err := st.Sessions(ctx, carryover.SessionFilter{Parent: parent.ID})
	if err != nil {
		return carryover.Session{}, fmt.Errorf("subagents: %w", err)
	}
	var found []carryover.Session
	for _, s := range subs {
		if strings.HasPrefix(carryover.AgentName(s.ID), agentRef) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return carryover.Session{}, notFound(fmt.Sprintf("session %s has no subagent %q (%s archived)",
			carryover.ShortID(parent.ID), agentRef, plural(len(subs), "subagent")))
	case 1:
		return found[0], nil
	}
	return carryover.Session{}, &carryover.AmbiguousError{Ref: ref, Matches: found}
}

// Subagents lists the subagents archived under a session, in the order
// they started.
func Subagents(ctx context.Context, st carryover.Store, parentID string) ([]carryover.Session, error) {
	subs, err := st.Sessions(ctx, carryover.SessionFilter{Parent: parentID})
	if err != nil {
		return nil, fmt.Errorf("subagents of %s: %w", parentID, err)
	}
	slices.SortStableFunc(subs, func(a, b carryover.Session) int {
		return cmp.Or(a.Started.Compare(b.Started), strings.Compare(a.ID, b.ID))
	})
	return subs, nil
}

// notFound is an error that reads as its message alone and matches
// carryover.ErrNotFound.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == carryover.ErrNotFound }

// FindProject finds the archived project a directory belongs to: root,
// the directory's project as ingest names it (projectdir's repository
// root), when it has sessions, else the nearest directory at or above dir
// that is an archived project (a project that is no repository, or whose
// directory is gone). It reports false when there is none.
func FindProject(ctx context.Context, st carryover.Store, dir, root string) (string, bool, error) {
	if root != "" {
		ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: root, Limit: 1})
		if err != nil {
			return "", false, fmt.Errorf("sessions: %w", err)
		}
		if len(ss) > 0 {
			return root, true, nil
		}
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{TopLevel: true})
	if err != nil {
		return "", false, fmt.Errorf("sessions: %w", err)
	}
	projects := map[string]bool{}
	for _, s := range all {
		projects[s.Project] = true
	}
	for d := projectdir.Clean(dir); ; d = projectdir.Parent(d) {
		if projects[d] {
			return d, true, nil
		}
		if projectdir.Parent(d) == d {
			return "", false, nil
		}
	}
}
