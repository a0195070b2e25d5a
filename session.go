package carryover

import (
	"fmt"
	"slices"
	"strings"
)

// ParentOfID is the parent session named by a subagent's id of the form
// "<parent>/agent-<id>", "" for any other id.
func ParentOfID(id string) string {
	parent, _, ok := strings.Cut(id, "/")
	if !ok {
		return ""
	}
	return parent
}

// AgentName is what a subagent's id adds to its parent's: "agent-x" for
// "<parent>/agent-x"; the whole id otherwise.
func AgentName(id string) string {
	if _, agent, ok := strings.Cut(id, "/"); ok {
		return agent
	}
	return id
}

// MinShortID is the least number of characters a shortened id keeps.
const MinShortID = 8

// IDShortener shortens session ids to the shortest prefix that no other
// top-level session of an archive shares, and at least MinShortID
// characters, so that a shortened id given back finds the same session. A
// subagent's id is shortened as its parent's, followed by "/" and its own
// name.
type IDShortener struct {
	sorted []string
}

// NewIDShortener shortens against ids, the archive's top-level session
// ids (subagents' ids, which extend their parent's, are ignored).
func NewIDShortener(ids []string) *IDShortener {
	var top []string
	for _, id := range ids {
		if !strings.Contains(id, "/") {
			top = append(top, id)
		}
	}
	slices.Sort(top)
	return &IDShortener{sorted: slices.Compact(top)}
}

// Short returns the shortened form of id.
func (s *IDShortener) Short(id string) string {
	if parent, agent, ok := strings.Cut(id, "/"); ok {
		return s.Short(parent) + "/" + agent
	}
	i, found := slices.BinarySearch(s.sorted, id)
	shared := 0
	if i > 0 {
		shared = commonPrefix(s.sorted[i-1], id)
	}
	next := i
	if found {
		next++
	}
	if next < len(s.sorted) {
		shared = max(shared, commonPrefix(s.sorted[next], id))
	}
	n := min(max(shared+1, MinShortID), len(id))
	return id[:n]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// AmbiguousError says that a session reference names more than one
// session (of different families: a parent and its subagents are one).
type AmbiguousError struct {
	Ref     string
	Matches []Session // the top-level sessions (or subagents) it could name
}

func (e *AmbiguousError) Error() string {
	ids := make([]string, 0, 4)
	for i, s := range e.Matches {
		if i == 3 {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, s.ID)
	}
	return fmt.Sprintf("session prefix %q is ambiguous: %d sessions match (%s)", e.Ref, len(e.Matches), strings.Join(ids, ", "))
}
