package retrieve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/tokenize"
	"github.com/carryover-dev/carryover/passage"
)

// Passages: a chunk keeps a shortened copy of its turn, so a line deep in a
// long tool result (line 2,613 of a config dump) is not in any chunk's
// text. A store that indexes the raw lines' passages (a
// carryover.PassageSearcher) finds it; the hit then shows the passage's
// matching lines, numbered, read back from the raw archive.

// passageFind is a passage found for a query, with what shows it.
type passageFind struct {
	hit carryover.PassageHit // the line's best passage
	// parts are the line's passages found, best first (a question's
	// words may be in one, its answer in another).
	parts []passage.Passage
	lines []string // the whole text of its transcript line, by text line
	cov   float64  // coverage of the query's terms by its best part
	rare  []bool   // the query's terms (by index) it holds that are identifiers
	chunk carryover.Chunk
	found bool // chunk is the archived chunk that holds the line
}

// passageMinCoverage is the least coverage of a query's informative terms
// by a passage for it to be shown, unless it holds an identifier of the
// query.
const passageMinCoverage = 0.5

// passageSlots is how many of a full list's last places a passage that
// no chunk hit holds may take. Chosen leave-one-session-out on `bench
// survival` (3 sessions): the last two places, before a hit that covers
// less of the query, were best in every fold (57 → 58 of 60); placing
// them by coverage alone lost 1 to 6 facts.
const passageSlots = 2

// maxPassageReads bounds the passages one search ranks; maxPassageLines
// the transcript lines it reads back from the raw archive (each a block
// decompressed and a line decoded), the best passages' first.
const (
	maxPassageReads = 12
	maxPassageLines = 6
)

// findPassages searches the store's passages, when it indexes them, and
// reads back the best of them: the ones that cover at least
// passageMinCoverage of the query's terms, one per transcript line, best
// coverage first. With within set (prompt recall), only the passages of
// those hits' chunks are read back: recall shows no other, and their
// chunk is known.
func findPassages(ctx context.Context, st carryover.Store, q carryover.Query, terms []term, within []carryover.Hit) ([]passageFind, error) {
	ps, ok := st.(carryover.PassageSearcher)
	if !ok || q.File != "" || len(terms) == 0 {
		return nil, nil
	}
	pq := q
	pq.Limit = maxPassageReads
	hits, err := ps.SearchPassages(ctx, pq)
	if err != nil {
		return nil, fmt.Errorf("search passages: %w", err)
	}
	type read struct {
		text  string
		parts []passage.Passage
	}
	// The lines to read back: the first maxPassageLines the hits name,
	// read at once.
	lines := map[carryover.LineRef]*read{}
	var refs []carryover.LineRef
	for _, h := range hits {
		ref := carryover.LineRef{SessionID: h.SessionID, Line: h.Line}
		if len(refs) == maxPassageLines || lines[ref] != nil || !inWithin(within, h) {
			continue
		}
		lines[ref] = &read{}
		refs = append(refs, ref)
	}
	raws, err := carryover.ReadRawLinesAt(ctx, st, refs)
	if err != nil {
		return nil, fmt.Errorf("search passages: %w", err)
	}
	for i, ref := range refs {
		if raw := raws[i]; len(raw) == 1 { // else pruned meanwhile
			r := lines[ref]
			r.text = passage.Text(raw[0].Text)
			r.parts = passage.Cut(ref.Line, r.text)
		}
	}
	var out []passageFind
	at := map[carryover.LineRef]int{} // out's index of a line
	for _, h := range hits {
		key := carryover.LineRef{SessionID: h.SessionID, Line: h.Line}
		cache := lines[key]
		if cache == nil || h.Part >= len(cache.parts) {
			continue
		}
		p := cache.parts[h.Part]
		lower := lowerASCII(p.Text)
		cov := coverage(terms, inPassage(lower))
		if cov < passageMinCoverage && !holdsRare(terms, lower) {
			continue
		}
		if i, ok := at[key]; ok {
			out[i].parts = append(out[i].parts, p)
			markRare(out[i].rare, terms, lower)
			continue
		}
		at[key] = len(out)
		f := passageFind{hit: h, parts: []passage.Passage{p}, lines: strings.Split(cache.text, "\n"), cov: cov, rare: make([]bool, len(terms))}
		markRare(f.rare, terms, lower)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].cov > out[j].cov })
	if within != nil {
		return out, nil // attachPassages finds each one's chunk among within
	}
	refs = refs[:0]
	for _, f := range out {
		refs = append(refs, carryover.LineRef{SessionID: f.hit.SessionID, Line: f.hit.Line})
	}
	chunks, err := carryover.ReadChunksAt(ctx, st, refs)
	if err != nil {
		return nil, fmt.Errorf("search passages: %w", err)
	}
	kept := out[:0]
	for i := range out {
		f := &out[i]
		if cs := chunks[i]; len(cs) > 0 {
			f.chunk, f.found = cs[0], true
		} else {
			// A turn not chunked yet: the line alone.
			f.chunk = carryover.Chunk{SessionID: f.hit.SessionID, Project: f.hit.Project, FirstLine: f.hit.Line, LastLine: f.hit.Line}
		}
		// A passage has no time of its own: its chunk's (Query.Since).
		if !q.Since.IsZero() && (!f.found || f.chunk.Start.Before(q.Since) && f.chunk.End.Before(q.Since)) {
			continue
		}
		kept = append(kept, *f)
	}
	return kept, nil
}

// inWithin reports whether the passage hit h is in one of within's
// chunks; any is when within is nil.
func inWithin(within []carryover.Hit, h carryover.PassageHit) bool {
	return within == nil || slices.ContainsFunc(within, func(w carryover.Hit) bool {
		return w.Chunk.SessionID == h.SessionID && h.Line >= w.Chunk.FirstLine && h.Line <= w.Chunk.LastLine
	})
}

// inPassage reports a term's presence in lower, ASCII-lowercased text:
// the term, or its stem as the index matched it ("failed" in "FAIL:").
func inPassage(lower string) func(term) bool {
	return func(t term) bool { return hasTerm(lower, t) }
}

func hasTerm(lower string, t term) bool {
	if t.shape != noShape {
		return false
	}
	if strings.Contains(lower, t.text) {
		return true
	}
	stem := tokenize.Stem(t.text)
	return len(stem) >= 4 && stem != t.text && strings.Contains(lower, stem)
}

// specific reports whether a query term names one thing: an identifier
// (a path, snake_case, camelCase, a dotted name, a flag) or a number of
// three digits or more (a port, an id, a count, a setting's value).
func specific(t term) bool {
	if t.rare {
		return true
	}
	if len(t.text) < 3 {
		return false
	}
	for _, r := range t.text {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// holdsRare reports whether lower holds a specific term of the query.
func holdsRare(terms []term, lower string) bool {
	for _, t := range terms {
		if specific(t) && strings.Contains(lower, t.text) {
			return true
		}
	}
	return false
}

// markRare marks the query's identifier terms lower holds.
func markRare(rare []bool, terms []term, lower string) {
	for i, t := range terms {
		if specific(t) && !rare[i] && strings.Contains(lower, t.text) {
			rare[i] = true
		}
	}
}

// ownsRare reports whether f holds an identifier of the query that no
// chunk of es holds: the passage is the only place the archive shows it.
func ownsRare(f *passageFind, es []searchEntry, terms []term) bool {
	for i, t := range terms {
		if !f.rare[i] {
			continue
		}
		held := false
		for _, e := range es {
			if inChunk(e.hit.Chunk)(t) {
				held = true
				break
			}
		}
		if !held {
			return true
		}
	}
	return false
}

// searchEntry is one result in the making: a chunk hit, and the passage that
// shows it when one covers the query better than the chunk's text.
type searchEntry struct {
	hit  carryover.Hit
	pass *passageFind
	// attached: pass is of the hit's chunk, found by the chunk's rank,
	// and shows what the chunk's text lost.
	attached bool
	cov      float64
	band     string
}

// attachPassages is mergePassages without hits of their own: a passage
// only shows the lines a hit's chunk lost (recall injects unasked, and its
// gates are the chunks').
func attachPassages(hits []carryover.Hit, finds []passageFind, terms []term) []searchEntry {
	es := plainEntries(hits)
	for i := range es {
		es[i].cov = coverage(terms, inChunk(es[i].hit.Chunk))
	}
	for i := range finds {
		f := &finds[i]
		for j := range es {
			c := es[j].hit.Chunk
			if c.SessionID != f.hit.SessionID || f.hit.Line < c.FirstLine || f.hit.Line > c.LastLine {
				continue
			}
			better := f.cov > es[j].cov || ownsRare(f, es[j:j+1], terms)
			if es[j].pass == nil && better && lacksLines(f, c, terms) {
				es[j].pass, es[j].attached = f, true
			}
			break
		}
	}
	return es
}

// mergePassages adds the passages to the chunk hits, in rank order: a
// passage of a hit's chunk that covers more of the query than the chunk's
// text shows that hit; another stands as a hit of its own, placed before
// the first hit that covers less of the query. At most limit entries.
func mergePassages(hits []carryover.Hit, finds []passageFind, terms []term, limit int) []searchEntry {
	es := make([]searchEntry, len(hits))
	for i, h := range hits {
		es[i] = searchEntry{hit: h, cov: coverage(terms, inChunk(h.Chunk))}
	}
	for i := range finds {
		f := &finds[i]
		at := -1
		for j, e := range es {
			c := e.hit.Chunk
			if c.SessionID == f.hit.SessionID && c.FirstLine <= f.hit.Line && f.hit.Line <= c.LastLine {
				at = j
				break
			}
		}
		if at >= 0 {
			// It shows the hit when it covers more of the query, or holds
			// an identifier of it, with lines the chunk's text lacks.
			better := f.cov > es[at].cov || ownsRare(f, es[at:at+1], terms)
			if es[at].pass == nil && better && lacksLines(f, es[at].hit.Chunk, terms) {
				es[at].pass, es[at].attached = f, true
				es[at].cov = max(es[at].cov, f.cov)
			}
			continue
		}
		e := searchEntry{hit: carryover.Hit{Chunk: f.chunk, BM25: f.hit.BM25}, pass: f, cov: f.cov}
		pos := len(es)
		switch {
		case ownsRare(f, es, terms):
			// The only place that shows an identifier of the query.
			pos = 0
		default:
			for j, o := range es {
				if o.cov < f.cov {
					pos = j
					break
				}
			}
			// The last passageSlots places of a full list at best: the
			// chunks' fused rank (vectors, turns) is the better judge
			// of what else answers.
			pos = max(pos, min(limit-passageSlots, len(es)))
		}
		es = append(es[:pos], append([]searchEntry{e}, es[pos:]...)...)
	}
	return es[:min(len(es), limit)]
}

// passageSnippet shows a passage's best matching text lines, numbered,
// with a line of context around each, within size bytes: the best line
// first, then the next best while they fit, in text order.
func passageSnippet(f *passageFind, terms []term, size int, skip *carryover.Chunk) string {
	type scored struct {
		n     int // text line number, 1-based
		score float64
	}
	var ls []scored
	for _, p := range f.parts {
		for n := p.From; n <= p.To && n <= len(f.lines); n++ {
			if skip != nil && inChunkText(*skip, f.lines[n-1]) {
				continue
			}
			if s := lineScore(f.lines[n-1], terms); s > 0 {
				ls = append(ls, scored{n, s})
			}
		}
	}
	if len(ls) == 0 {
		if skip != nil {
			return ""
		}
		ls = append(ls, scored{f.parts[0].From, 0})
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].score > ls[j].score })
	const maxLine = 240
	show := map[int]bool{}
	render := func() string {
		var nums []int
		for n := range show {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		var b strings.Builder
		for i, n := range nums {
			if i > 0 && n != nums[i-1]+1 {
				b.WriteString("   …\n")
			}
			l := strings.TrimRight(f.lines[n-1], " \r\t")
			if len(l) > maxLine {
				l = window(l, terms, maxLine)
			}
			fmt.Fprintf(&b, "%5d│ %s\n", n, l)
		}
		return strings.TrimRight(b.String(), "\n")
	}
	out := ""
	for i, l := range ls {
		added := []int{}
		for n := max(l.n-1, 1); n <= min(l.n+1, len(f.lines)); n++ {
			if !show[n] {
				show[n] = true
				added = append(added, n)
			}
		}
		text := render()
		if i > 0 && len(text) > size {
			for _, n := range added {
				delete(show, n)
			}
			break
		}
		out = text
	}
	// Room left: more context around the shown lines, nearest first.
	for k := 2; k <= passage.Lines; k++ {
		var added []int
		for n := range maps.Keys(show) {
			for _, m := range []int{n - 1, n + 1} {
				if m >= 1 && m <= len(f.lines) && !show[m] {
					added = append(added, m)
				}
			}
		}
		if len(added) == 0 {
			break
		}
		for _, n := range added {
			show[n] = true
		}
		text := render()
		if len(text) > size {
			for _, n := range added {
				delete(show, n)
			}
			break
		}
		out = text
	}
	if len(out) > size {
		out = cut(out, 0, 0, 0, size)
	}
	return out
}

// passageHeader is a passage hit's provenance line: the transcript line
// and text lines shown, and how to read the whole line.
func passageHeader(f *passageFind) string {
	c := f.chunk
	short := carryover.ShortID(c.SessionID)
	where := fmt.Sprintf("session %s, L%d", short, f.hit.Line)
	if f.found {
		where = fmt.Sprintf("session %s, turn %d, L%d", short, c.Turn, f.hit.Line)
	}
	return fmt.Sprintf("[%s, text of %d lines; more: carryover get %s:%d-%d]\n",
		where, len(f.lines), short, f.hit.Line, f.hit.Line)
}

// plainEntries are hits shown by their chunks' text.
func plainEntries(hits []carryover.Hit) []searchEntry {
	es := make([]searchEntry, len(hits))
	for i, h := range hits {
		es[i] = searchEntry{hit: h}
	}
	return es
}

// lacksLines reports whether the passage has lines that match the query
// and are not in the chunk's text (cut off, or never rendered).
func lacksLines(f *passageFind, c carryover.Chunk, terms []term) bool {
	for _, p := range f.parts {
		for n := p.From; n <= p.To && n <= len(f.lines); n++ {
			if lineScore(f.lines[n-1], terms) > 0 && !inChunkText(c, f.lines[n-1]) {
				return true
			}
		}
	}
	return false
}

// inChunkText reports whether a text line is in the chunk's text.
func inChunkText(c carryover.Chunk, line string) bool {
	line = strings.TrimSpace(line)
	return line == "" || strings.Contains(c.Text, line)
}

// lineScore is the weight of the query's terms a text line holds.
func lineScore(line string, terms []term) float64 {
	lower := lowerASCII(line)
	s := 0.0
	for _, t := range terms {
		if hasTerm(lower, t) {
			s += t.weight
		}
	}
	return s
}
