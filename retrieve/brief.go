package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
)

// DefaultBriefBudget bounds the startup brief.
const DefaultBriefBudget = 1500

// briefPerKind is how many items of each kind the brief lists.
const briefPerKind = 3

// BriefRequest asks for the "last time in this project" brief of a new
// session.
type BriefRequest struct {
	Project   string
	SessionID string // the new session, never described
	Budget    int    // characters; DefaultBriefBudget when <= 0
}

// StartupBrief describes the project's latest other session: its title,
// its last state note, its open errors, the last files it changed and
// commands that worked. It is empty when the project has no other session.
func StartupBrief(ctx context.Context, st carryover.Store, req BriefRequest) (Block, error) {
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultBriefBudget
	}
	if req.Project == "" {
		return Block{}, nil
	}
	// A subagent is part of its parent session, not a session of its own.
	ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: req.Project, TopLevel: true, Limit: 5})
	if err != nil {
		return Block{}, fmt.Errorf("brief: %w", err)
	}
	var last carryover.Session
	for _, s := range ss {
		if s.ID != req.SessionID {
			last = s
			break
		}
	}
	if last.ID == "" {
		return Block{}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## carryover: last time in this project\nSession %s, %s: %s\n", carryover.ShortID(last.ID),
		last.Updated.Local().Format("2006-01-02 15:04"), briefLine(last.Title, 160))
	var blk Block
	notes, err := st.Notes(ctx, "", last.ID)
	if err != nil {
		return Block{}, fmt.Errorf("brief: %w", err)
	}
	for i := len(notes) - 1; i >= 0; i-- {
		if notes[i].Kind == "state" {
			fmt.Fprintf(&b, "State: %s\n", briefLine(notes[i].Text, 400))
			break
		}
	}
	sections := []struct {
		title string
		kind  carryover.ItemKind
		keep  func(carryover.Item) bool
	}{
		{"Open errors", carryover.KindError, func(it carryover.Item) bool { return !it.Resolved }},
		{"Files changed", carryover.KindFileEdit, nil},
		{"Commands that worked", carryover.KindCommand, nil},
	}
	for _, sec := range sections {
		items, err := st.Items(ctx, carryover.ItemFilter{SessionID: last.ID, Kinds: []carryover.ItemKind{sec.kind}, Limit: 50})
		if err != nil && !errors.Is(err, carryover.ErrNotFound) {
			return Block{}, fmt.Errorf("brief: %w", err)
		}
		var lines []string
		seen := map[string]bool{}
		for _, it := range items { // newest first
			if sec.keep != nil && !sec.keep(it) || seen[it.Key] {
				continue
			}
			seen[it.Key] = true
			// Paths read best relative to the project.
			text := projectdir.TrimRoot(it.Text, last.Project)
			lines = append(lines, "- "+briefLine(text, 160))
			blk.ItemIDs = append(blk.ItemIDs, it.ID)
			if len(lines) == briefPerKind {
				break
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "%s:\n%s\n", sec.title, strings.Join(lines, "\n"))
		}
	}
	fmt.Fprintf(&b, "More: `carryover search \"<words>\" --session %s`.\n", carryover.ShortID(last.ID))
	blk.Text = b.String()
	if len(blk.Text) > budget {
		blk.Text = cut(blk.Text, 0, 0, 0, budget)
	}
	blk.Reason = fmt.Sprintf("startup brief of the project's last session %s: %s", carryover.ShortID(last.ID),
		plural(len(blk.ItemIDs), "item"))
	return blk, nil
}

// briefLine collapses white space and shortens s to at most n bytes.
func briefLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return cut(s, 0, 0, 0, n)
}
