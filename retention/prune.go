// Package retention removes archived sessions: prune selects whole
// sessions by age, size or project and removes them (a dry run by
// default), forget removes one session everywhere carryover keeps it and
// keeps it from being archived again. Both then compact the store, so that
// the removed text leaves its files.
package retention

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/carryover-dev/carryover"
)

// compacter is what the SQLite store adds to carryover.Store for retention:
// erasing what deletions leave in the file and giving its space back.
type compacter interface {
	Compact(ctx context.Context) error
	FreeBytes(ctx context.Context) (int64, error)
}

// Criteria select the sessions prune removes; all that are set apply.
type Criteria struct {
	Before  time.Time          // last updated before this (zero: any time)
	MaxSize int64              // the oldest go until the store is under this size (-1: no limit)
	Project string             // an archived project ("" for any)
	Session *carryover.Session // this session (nil for any)
}

// Plan is what prune would remove: top-level sessions with their
// subagents, oldest first.
type Plan struct {
	Sessions []carryover.Session // Chunks counts the subagents' too
	Size     int64               // the store's size
	Total    int                 // the sessions considered: the store's top-level ones, or the one asked for
	freed    map[string]int64    // by session: what removing it frees after the plan's earlier ones
}

// Select finds the sessions c selects.
func Select(ctx context.Context, st carryover.Store, c Criteria) (*Plan, error) {
	every, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		return nil, err
	}
	// A session goes with its subagents (Prune removes them with it): the
	// candidates are top-level sessions, each counting its subagents' chunks.
	var all []carryover.Session
	family := map[string]int{}
	for _, s := range every {
		if s.Parent == "" {
			all = append(all, s)
		}
		family[cmp.Or(s.Parent, s.ID)] += s.Chunks
	}
	for i := range all {
		all[i].Chunks = family[all[i].ID]
	}
	size, err := st.Size(ctx)
	if err != nil {
		return nil, err
	}
	live := size
	if comp, ok := st.(compacter); ok {
		free, err := comp.FreeBytes(ctx)
		if err != nil {
			return nil, err
		}
		live -= free
	}
	if c.Session != nil {
		s := *c.Session
		if s.Parent == "" {
			s.Chunks = family[s.ID]
		}
		all = []carryover.Session{s}
	}
	// A candidate goes with its subagents (one asked for alone goes alone).
	candidate, parent := map[string]bool{}, map[string]string{}
	for _, s := range all {
		candidate[s.ID] = true
	}
	for _, s := range every {
		parent[s.ID] = s.Parent
	}
	goesWith := func(id string) string {
		if p := cmp.Or(parent[id], carryover.ParentOfID(id)); !candidate[id] && candidate[p] {
			return p
		}
		return id
	}
	est, err := newEstimator(ctx, st, every, goesWith, live)
	if err != nil {
		return nil, err
	}
	p := &Plan{Size: size, Total: len(all), freed: map[string]int64{}}
	for _, s := range all {
		if c.Project != "" && s.Project != c.Project {
			continue
		}
		if !c.Before.IsZero() && !s.Updated.Before(c.Before) {
			continue
		}
		p.Sessions = append(p.Sessions, s)
	}
	sort.SliceStable(p.Sessions, func(i, j int) bool { return p.Sessions[i].Updated.Before(p.Sessions[j].Updated) })
	// Only as many of the oldest as it takes to get under the size.
	remaining, n := live, 0
	for n < len(p.Sessions) && (c.MaxSize < 0 || remaining > c.MaxSize) {
		b := est.remove(p.Sessions[n].ID)
		p.freed[p.Sessions[n].ID] = b
		remaining -= b
		n++
	}
	p.Sessions = p.Sessions[:n]
	return p, nil
}

// Bytes is about how much of the store removing a session of the plan
// frees, once the plan's earlier sessions are gone.
func (p *Plan) Bytes(s carryover.Session) int64 { return p.freed[s.ID] }

// Prune removes the plan's sessions one by one (with dryRun, only counts
// what would go), calling each after each session, and returns the total.
func (p *Plan) Prune(ctx context.Context, st carryover.Store, dryRun bool, each func(carryover.Session, carryover.PruneReport)) (carryover.PruneReport, error) {
	var total carryover.PruneReport
	for _, s := range p.Sessions {
		rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: s.ID, DryRun: dryRun})
		if err != nil {
			return total, fmt.Errorf("prune %s: %w", s.ID, err)
		}
		addReport(&total, rep)
		each(s, rep)
	}
	return total, nil
}

// Summary is the last lines of a prune: what it removed, or would.
func (p *Plan) Summary(total carryover.PruneReport, dryRun bool) string {
	if !dryRun {
		return fmt.Sprintf("removed %s\n", Describe(total))
	}
	var freed int64
	for _, s := range p.Sessions {
		freed += p.freed[s.ID]
	}
	return fmt.Sprintf("would remove %s, about %s of %s\n", Describe(total), FormatSize(freed), FormatSize(p.Size)) +
		"nothing removed: run again with --yes to remove them\n"
}

// AfterDelete compacts the store after a deletion, or says why the file
// keeps its size; compacting, when set, is told before it starts.
func AfterDelete(ctx context.Context, out io.Writer, st carryover.Store, before int64, noCompact bool, compacting func()) error {
	comp, ok := st.(compacter)
	switch {
	case !ok:
		fmt.Fprintln(out, "the store reuses the freed space")
		return nil
	case noCompact:
		fmt.Fprintln(out, "not compacted: the freed space is reused by later writes, the file keeps its size, "+
			"and older copies of the removed text may stay in free pages until then")
		return nil
	}
	if compacting != nil {
		compacting()
	}
	if err := comp.Compact(ctx); err != nil {
		return &carryover.HintError{Err: fmt.Errorf("compact the store (the rows are already removed): %w", err),
			Hint: "the store stays usable; run the command again when no Claude Code session is writing, or with --no-compact"}
	}
	after, err := st.Size(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "compacted the store: %s -> %s\n", FormatSize(before), FormatSize(after))
	return nil
}

// estimator tells what removing sessions (with their subagents) frees:
// their share of the store's live bytes by the bytes of their rows, where
// a chunk several sessions hold is freed with the last of them. A store
// that cannot tell its rows' bytes is estimated by chunk counts, each
// stored chunk once.
type estimator struct {
	live, total int64
	left        []int            // by footprint: the families holding it that are not removed yet
	bytes       []int64          // by footprint
	of          map[string][]int // by family: the footprints it holds
}

// newEstimator reads the rows' bytes; goesWith names the candidate session
// whose removal removes a session (itself, or the parent it goes with).
func newEstimator(ctx context.Context, st carryover.Store, all []carryover.Session, goesWith func(string) string, live int64) (*estimator, error) {
	var fps []carryover.Footprint
	if f, ok := st.(carryover.Footprinter); ok {
		var err error
		if fps, err = f.Footprints(ctx); err != nil {
			return nil, fmt.Errorf("session sizes: %w", err)
		}
	} else {
		for _, s := range all {
			fps = append(fps, carryover.Footprint{Sessions: []string{s.ID}, Bytes: int64(s.Chunks - s.Shared)})
		}
	}
	e := &estimator{live: live, of: map[string][]int{}}
	for i, f := range fps {
		var fams []string
		for _, id := range f.Sessions {
			if fam := goesWith(id); !slices.Contains(fams, fam) {
				fams = append(fams, fam)
				e.of[fam] = append(e.of[fam], i)
			}
		}
		e.left = append(e.left, len(fams))
		e.bytes = append(e.bytes, f.Bytes)
		e.total += f.Bytes
	}
	return e, nil
}

// remove removes a top-level session and its subagents, and returns the
// live bytes that frees.
func (e *estimator) remove(id string) int64 {
	var freed int64
	for _, i := range e.of[id] {
		if e.left[i]--; e.left[i] == 0 {
			freed += e.bytes[i]
		}
	}
	delete(e.of, id)
	if e.total <= 0 {
		return 0
	}
	return int64(float64(e.live) * float64(freed) / float64(e.total))
}

func addReport(t *carryover.PruneReport, r carryover.PruneReport) {
	t.Sessions = append(t.Sessions, r.Sessions...)
	t.Chunks += r.Chunks
	t.Shared += r.Shared
	t.Items += r.Items
	t.Compactions += r.Compactions
	t.Injections += r.Injections
	t.Notes += r.Notes
}

// Describe says what a removal removed, and which chunks it left to the
// other sessions that hold them too.
func Describe(r carryover.PruneReport) string {
	return fmt.Sprintf("%s (%s, %s, %s, %s, %s)%s", plural(len(r.Sessions), "session"), plural(r.Chunks, "chunk"),
		plural(r.Items, "item"), plural(r.Compactions, "compaction"), plural(r.Injections, "injection"), plural(r.Notes, "note"), keptShared(r))
}

// keptShared says how many chunks a removal left to other sessions.
func keptShared(r carryover.PruneReport) string {
	if r.Shared == 0 {
		return ""
	}
	return fmt.Sprintf("; %s kept, for the sessions that hold them too", plural(r.Shared, "shared chunk"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
