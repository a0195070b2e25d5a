package web

import (
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
)

// The session page is a timeline: per context window, the compaction that
// opened it, then its turns in order, each injection at the place it was
// made. An audit record holds a time and a window but no transcript line,
// so the place comes from the event and the chunks' times:
//
//   - a restore (SessionStart) opens its window, right after the boundary;
//   - a recall (UserPromptSubmit) goes with the turn whose prompt it
//     answered: the last turn started by then;
//   - other events (PostToolUse, PostToolUseFailure) follow the last row
//     of chunks started by then;
//   - PreCompact instructions close the window they summarised.
//
// An injection made after everything archived of its window (its prompt
// is not archived yet) is shown after the window's last turn.

// Time tolerances of that placement.
const (
	// promptSlack allows for a hook's clock reading just before the
	// prompt's transcript timestamp.
	promptSlack = 2 * time.Second
	// overSlack is how long after the end of the last archived step an
	// injection still belongs to it: later, it was for a prompt or step
	// not archived yet.
	overSlack = 30 * time.Second
)

// injectionView is an audit record with links to the chunks it carried.
type injectionView struct {
	carryover.Injection
	// Kind is restore, recall, instructions or other, for its style.
	Kind   string
	Chunks []chunkRef
	Items  int
}

// chunkRef links to an archived chunk; Session is "" when it is gone.
type chunkRef struct {
	ID      int64
	Session string
	Turn    int
}

type chunkView struct {
	carryover.Chunk
	Brief    string // its summary without the turn's prompt, which the turn shows
	Injected int    // times it was injected in this session
}

// rowView is one row of a turn: a chunk, or chunks whose transcript line
// ranges overlap (a long step split in pieces, parallel calls whose
// results came later), shown as one.
type rowView struct {
	Chunks              []chunkView
	FirstLine, LastLine int
	Tools, Files        []string
	Commands            []string
	Injected            int
	// After are injections made after this row's steps started (a
	// PostToolUse recall), before the next row's.
	After      []injectionView
	start, end time.Time
}

// First is the row's first chunk, which names it.
func (r rowView) First() chunkView { return r.Chunks[0] }

// Last is the row's last chunk.
func (r rowView) Last() chunkView { return r.Chunks[len(r.Chunks)-1] }

type turnView struct {
	Turn   int
	Prompt string
	// Recalls are what was injected with the turn's prompt.
	Recalls    []injectionView
	Rows       []rowView
	start, end time.Time
}

// windowView is one context window: the compaction that opened it (none
// for the first), what was injected when it opened, its turns, what was
// injected after its last archived step, and what was sent to the
// summariser before it closed.
type windowView struct {
	Window     int
	Compaction *carryover.Compaction
	Injected   []injectionView
	Turns      []turnView
	Later      []injectionView
	PreCompact []injectionView
}

type sessionView struct {
	Session    carryover.Session
	Parent     *carryover.Session // the session a subagent belongs to
	Subagents  []sessionRow       // the subagents the session ran, Short naming each under it
	Windows    []windowView
	Injections int
	Tokens     int
}

// injectionKind classifies an event for display.
func injectionKind(event string) string {
	switch {
	case strings.HasPrefix(event, "SessionStart"):
		return "restore"
	case strings.HasPrefix(event, "UserPromptSubmit"):
		return "recall"
	case strings.HasPrefix(event, "PreCompact"):
		return "instructions"
	}
	return "other"
}

// timeline lays out a session: chunks in sequence order, compactions, and
// injections oldest first with the chunks they carried (refs).
func timeline(sess carryover.Session, chunks []carryover.Chunk, comps []carryover.Compaction,
	injs []carryover.Injection, refs map[int64]chunkRef) sessionView {
	v := sessionView{Session: sess, Injections: len(injs)}
	last := sess.Windows
	for _, c := range chunks {
		last = max(last, c.Window)
	}
	for _, in := range injs {
		last = max(last, in.Window)
	}
	v.Windows = make([]windowView, last+1)
	for i := range v.Windows {
		v.Windows[i].Window = i
	}
	for i := range comps {
		if c := comps[i]; c.Window >= 0 && c.Window <= last {
			v.Windows[c.Window].Compaction = &comps[i]
		}
	}
	injected := map[int64]int{}
	for _, in := range injs {
		for _, cid := range in.ChunkIDs {
			injected[cid]++
		}
	}
	for _, c := range chunks {
		v.Windows[max(c.Window, 0)].add(chunkView{Chunk: c, Brief: brief(c), Injected: injected[c.ID]})
	}
	for _, in := range injs {
		iv := injectionView{Injection: in, Kind: injectionKind(in.Event), Items: len(in.ItemIDs)}
		for _, cid := range in.ChunkIDs {
			ref := refs[cid]
			ref.ID = cid
			iv.Chunks = append(iv.Chunks, ref)
		}
		v.Tokens += in.Tokens
		v.Windows[max(in.Window, 0)].place(iv)
	}
	return v
}

// add appends a chunk to the window's last turn, or starts a turn, and to
// the turn's last row when their line ranges overlap.
func (w *windowView) add(c chunkView) {
	if n := len(w.Turns); n == 0 || w.Turns[n-1].Turn != c.Turn {
		w.Turns = append(w.Turns, turnView{Turn: c.Turn, Prompt: c.Prompt})
	}
	t := &w.Turns[len(w.Turns)-1]
	t.start, t.end = earliest(t.start, c.Start), latest(t.end, c.End)
	if n := len(t.Rows); n > 0 {
		r := &t.Rows[n-1]
		// A subagent's chunks number the lines of another file.
		if p := r.Last(); p.Sidechain == c.Sidechain && p.AgentID == c.AgentID && c.FirstLine <= r.LastLine {
			r.Chunks = append(r.Chunks, c)
			r.LastLine = max(r.LastLine, c.LastLine)
			r.Tools, r.Files, r.Commands = union(r.Tools, c.Tools), union(r.Files, c.Files), union(r.Commands, c.Commands)
			r.Injected += c.Injected
			r.start, r.end = earliest(r.start, c.Start), latest(r.end, c.End)
			return
		}
	}
	t.Rows = append(t.Rows, rowView{Chunks: []chunkView{c}, FirstLine: c.FirstLine, LastLine: c.LastLine,
		Tools: union(nil, c.Tools), Files: union(nil, c.Files), Commands: union(nil, c.Commands), Injected: c.Injected, start: c.Start, end: c.End})
}

// place puts an injection where it was made (see the top of this file).
func (w *windowView) place(iv injectionView) {
	switch iv.Kind {
	case "instructions":
		w.PreCompact = append(w.PreCompact, iv)
		return
	case "restore":
		w.Injected = append(w.Injected, iv)
		return
	}
	t := iv.Time
	if iv.Kind == "recall" {
		i := -1
		for j, tv := range w.Turns {
			if !tv.start.IsZero() && !tv.start.After(t.Add(promptSlack)) {
				i = j
			}
		}
		switch {
		case i < 0:
			w.Injected = append(w.Injected, iv)
		case i == len(w.Turns)-1 && t.After(w.Turns[i].end.Add(overSlack)):
			w.Later = append(w.Later, iv)
		default:
			w.Turns[i].Recalls = append(w.Turns[i].Recalls, iv)
		}
		return
	}
	var at *rowView
	for i := range w.Turns {
		for j := range w.Turns[i].Rows {
			if r := &w.Turns[i].Rows[j]; !r.start.IsZero() && !r.start.After(t) {
				at = r
			}
		}
	}
	switch {
	case at == nil:
		w.Injected = append(w.Injected, iv)
	case at == w.lastRow() && t.After(at.end.Add(overSlack)):
		w.Later = append(w.Later, iv)
	default:
		at.After = append(at.After, iv)
	}
}

func (w *windowView) lastRow() *rowView {
	if n := len(w.Turns); n > 0 {
		if rs := w.Turns[n-1].Rows; len(rs) > 0 {
			return &rs[len(rs)-1]
		}
	}
	return nil
}

// union appends to a the strings of b it does not hold yet.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// earliest and latest ignore zero times (a transcript line without one).
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// brief drops the "prompt | " head of a chunk summary when it repeats the
// turn's prompt.
func brief(c carryover.Chunk) string {
	head, rest, ok := strings.Cut(c.Summary, " | ")
	if ok && strings.HasPrefix(strings.Join(strings.Fields(c.Prompt), " "), strings.TrimSuffix(head, "…")) {
		return rest
	}
	return c.Summary
}
