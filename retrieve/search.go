package retrieve

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/rank"
)

// Search defaults.
const (
	DefaultSearchBudget = 4000
	DefaultSearchLimit  = 8
	// minSnippet is the smallest snippet body worth returning.
	minSnippet = 80
	// lineSnap is how far a snippet edge moves to land on a line boundary.
	lineSnap = 80
)

// SearchRequest is a full-text search of the archive.
type SearchRequest struct {
	Query  carryover.Query // Limit 0 means DefaultSearchLimit
	Budget int             // total bytes of all result texts; DefaultSearchBudget when <= 0
}

// Result is one ranked chunk, cut to the part that best matches the query.
type Result struct {
	SessionID string
	Turn      int
	Lines     [2]int // first and last transcript line of the chunk
	Score     float64
	Text      string // provenance header line, then the snippet
	ChunkID   int64
	Project   string
	Time      time.Time // the chunk's start
	Snippet   string    // Text without its header line
	// RawLine, when not 0, is the transcript line whose passage the
	// snippet shows (numbered by its text lines): a tool result or
	// message that the raw archive holds whole (carryover get
	// SESSION:RawLine-RawLine).
	RawLine int
	// Band says how well this hit matches: BandStrong when it clears both
	// bars of a strong match (WeakMinScore, WeakMinCoverage), BandGood
	// when it clears one, BandWeak when neither.
	Band string
}

// The bands of Result.Band.
const (
	BandStrong = "strong"
	BandGood   = "good"
	BandWeak   = "weak"
)

// SearchResponse is a search's results, best first, and how much to trust
// them.
type SearchResponse struct {
	Results []Result
	// Weak is set when no result clears the bar of a strong match
	// (WeakMinScore and WeakMinCoverage): the results are only the
	// closest the archive holds, and likely not what was asked for.
	Weak bool
}

// A search's best hit is a strong match when its BM25 is at least
// WeakMinScore and its chunk holds at least WeakMinCoverage of the query's
// informative words, weighted: the bar a recall sets before it injects a
// hit unasked (RecallMinScore, RecallMinCoverage), without recall's
// minimum number of words, as a search may well be one word.
const (
	WeakMinScore    = RecallMinScore
	WeakMinCoverage = RecallMinCoverage
)

// Search ranks chunks for the query and returns results whose Text fields
// together fit the budget: exactly what a recall would inject. Each result
// shows the window of its chunk with the densest query-term matches. The
// store's ranking is refined by the chunks' texts (see Refine).
func Search(ctx context.Context, st carryover.Store, req SearchRequest) (SearchResponse, error) {
	q := req.Query
	if q.Limit <= 0 {
		q.Limit = DefaultSearchLimit
	}
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultSearchBudget
	}
	if strings.TrimSpace(q.Text) == "" {
		return SearchResponse{}, nil
	}
	limit := q.Limit
	// Ask for more than the limit, for the hits Refine leaves out, but
	// not beyond the store's candidate pool: a bigger limit widens the pool
	// the store reranks, and so changes the ranking itself.
	q.Limit = min(limit+max(limit, 8), max(limit, rank.Pool))
	hits, err := st.Search(ctx, q)
	if err != nil {
		return SearchResponse{}, fmt.Errorf("search: %w", err)
	}
	hits = Refine(hits, q.Text, limit)
	terms := queryTerms(q.Text)
	finds, err := findPassages(ctx, st, q, terms, nil)
	if err != nil {
		return SearchResponse{}, err
	}
	es := mergePassages(hits, finds, terms, limit)
	weak := len(es) > 0
	for i := range es {
		scored, covered := es[i].hit.BM25 >= WeakMinScore, es[i].cov >= WeakMinCoverage
		switch {
		case scored && covered:
			es[i].band = BandStrong
			weak = false
		case scored || covered:
			es[i].band = BandGood
		default:
			es[i].band = BandWeak
		}
	}
	// One order: a hit's band is the coarse part of its rank, so a label
	// never rises down the list.
	orderBands(es)
	res := snippets(es, answerTerm(q.Text, terms), budget)
	return SearchResponse{Results: res, Weak: weak}, nil
}

// orderBands makes the order and the labels agree: a weak hit (neither
// bar cleared) never ranks above a good or strong one, and a label never
// rises down the list (a strong hit below a good one is shown as good).
// Sorting strong above good too cost a dev fact on `bench survival` (the
// fused score places a right "good" hit above a "strong" one that only
// shares words), so within the two the fused order stands.
func orderBands(es []searchEntry) {
	sort.SliceStable(es, func(i, j int) bool { return min(bandRank(es[i].band), 1) > min(bandRank(es[j].band), 1) })
	for i := 1; i < len(es); i++ {
		if bandRank(es[i].band) > bandRank(es[i-1].band) {
			es[i].band = es[i-1].band
		}
	}
}

// rawLine is the transcript line of the entry's passage, if it shows one.
func rawLine(e searchEntry) int {
	if e.pass == nil {
		return 0
	}
	return e.pass.hit.Line
}

// bandRank orders the bands, strongest highest.
func bandRank(b string) int {
	switch b {
	case BandStrong:
		return 2
	case BandGood:
		return 1
	}
	return 0
}

// Refine applies to a store's hits, in rank order, the rules that need
// their texts (package rank): equal texts once, no noise (interrupted
// requests, boilerplate, empty acknowledgements), runs of a command that
// worked before its failed runs for a how-to query and the other way round
// for an error query, and at most rank.DocCap(limit) chunks of one split
// document. It returns at most limit hits.
func Refine(hits []carryover.Hit, query string, limit int) []carryover.Hit {
	hits, _ = rank.DropNoise(uniqueHits(hits))
	hits = rank.ByOutcome(hits, rank.QueryIntent(query))
	hits, _ = rank.CapDocuments(hits, rank.DocCap(limit))
	return hits[:min(len(hits), limit)]
}

// snippets renders hits in rank order until budget bytes are used. Each
// hit gets its rankWeight's part of what is left, so short chunks leave
// room to the ones after them; the last one may be cut to fit.
func snippets(es []searchEntry, terms []term, budget int) []Result {
	var out []Result
	left := budget
	weightLeft := 0.0
	for i := range es {
		weightLeft += rankWeight(i)
	}
	for i, e := range es {
		h := e.hit
		c := h.Chunk
		header := fmt.Sprintf("[session %s, turn %d, L%d-%d]\n", carryover.ShortID(c.SessionID), c.Turn, c.FirstLine, c.LastLine)
		switch {
		case e.pass != nil && e.attached:
			short := carryover.ShortID(c.SessionID)
			header = fmt.Sprintf("[session %s, turn %d, L%d-%d; numbered: L%d, more: carryover get %s:%d-%d]\n",
				short, c.Turn, c.FirstLine, c.LastLine, e.pass.hit.Line, short, e.pass.hit.Line, e.pass.hit.Line)
		case e.pass != nil:
			header = passageHeader(e.pass)
		}
		share := int(float64(left)*rankWeight(i)/weightLeft) - len(header)
		weightLeft -= rankWeight(i)
		share = max(share, min(minSnippet, left-len(header)))
		if share < minSnippet/2 {
			break
		}
		body := c.Text
		if strings.TrimSpace(body) == "" {
			body = c.Summary
		}
		var snippet string
		switch {
		case e.pass != nil && e.attached:
			// The chunk's best window, then the lines past its cut.
			more := passageSnippet(e.pass, terms, share/2, &c)
			snippet = window(body, terms, share-len(more)-1)
			if more != "" {
				snippet += "\n" + more
			}
		case e.pass != nil:
			snippet = passageSnippet(e.pass, terms, share, nil)
		default:
			snippet = window(body, terms, share)
		}
		text := header + snippet
		out = append(out, Result{
			Project:   c.Project,
			Time:      c.Start,
			Snippet:   snippet,
			SessionID: c.SessionID,
			Turn:      c.Turn,
			Lines:     [2]int{c.FirstLine, c.LastLine},
			Score:     h.Score,
			Text:      text,
			ChunkID:   c.ID,
			Band:      e.band,
			RawLine:   rawLine(e),
		})
		left -= len(text)
	}
	return out
}

// rankWeight is the part of the budget the hit at rank i gets, relative
// to the others (1/rank²): the best hits are the likeliest to hold the
// answer, so the first two show their whole chunk (at most 1,600
// characters by default) within the default budget, and the later ones
// share what is left. With 1/rank the best hit of eight got a little over a
// third of the budget, less than a long chunk, and the part cut off held
// the answer: on `bench survival` the squared weight was chosen in each
// leave-one-session-out fold (recall 53 → 57 of 60 at 4,000 chars, never
// lower at 2,000 or 8,000).
func rankWeight(i int) float64 {
	r := float64(i + 1)
	return 1 / (r * r)
}

// uniqueHits drops hits whose chunk text equals a better hit's.
func uniqueHits(hits []carryover.Hit) []carryover.Hit {
	seen := map[string]bool{}
	var out []carryover.Hit
	for _, h := range hits {
		text := normSpace(h.Chunk.Text)
		k := h.Chunk.Hash
		if k == "" {
			k = text
		}
		if seen[k] || seen[text] {
			continue
		}
		seen[k] = true
		seen[text] = true
		out = append(out, h)
	}
	return out
}

// match is one occurrence of a term in a text.
type match struct {
	pos, end int // the bytes [pos, end) it covers
	term     int
}

// findMatches returns the occurrences of each term in lower (ASCII
// lowercased text), at most perTerm each, sorted by position.
func findMatches(lower string, terms []term, perTerm int) []match {
	var ms []match
	for ti, t := range terms {
		if t.shape != noShape {
			for _, sp := range shapeTokens(lower, t.shape, perTerm) {
				ms = append(ms, match{pos: sp[0], end: sp[1], term: ti})
			}
			continue
		}
		from, n := 0, 0
		for n < perTerm {
			i := strings.Index(lower[from:], t.text)
			if i < 0 {
				break
			}
			ms = append(ms, match{pos: from + i, end: from + i + len(t.text), term: ti})
			from += i + len(t.text)
			n++
		}
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a].pos < ms[b].pos })
	return ms
}

// window returns at most size bytes of text around its densest cluster of
// query terms: the span of at most size bytes holding the greatest weight
// of distinct terms (the shortest such span on ties), with some context
// before it, widened to whole lines where that keeps the span. A span
// inside a tool call's output is led by the call's line ("$ cmd"), in room
// taken from the span: output without the command that printed it says
// little. Without any match it returns the head.
func window(text string, terms []term, size int) string {
	text = strings.TrimSpace(text)
	if len(text) <= size {
		return text
	}
	ms := findMatches(lowerASCII(text), terms, 200)
	if len(ms) == 0 {
		return cut(text, 0, 0, 0, size)
	}
	start, a, b := densest(ms, terms, size)
	if line, from := callOf(text, a); line != "" && size/2 >= minCall {
		call := clip(line, size/2)
		room := size - len(call) - 1
		// The densest span of what follows the call's line, when it is
		// still in the call's output.
		after := ms[sort.Search(len(ms), func(i int) bool { return ms[i].pos >= from }):]
		s2, a2, b2 := densest(after, beside(terms, call), room)
		if line2, from2 := callOf(text, a2); line2 == line && from2 == from {
			s2, a2 = max(s2, from), max(a2, from)
			body := cut(text, s2, a2, max(b2, a2), room)
			if s2 == from {
				body = strings.TrimPrefix(body, "…") // nothing between the call and its output was left out
			}
			return call + "\n" + body
		}
	}
	return cut(text, start, a, b, size)
}

// beside returns terms with no weight for those shown already in shown
// (a window's call line, which leads the output's span): the span need
// not hold them again, and reaching up to their first match in the
// output pushed the lines that answer out of the window.
func beside(terms []term, shown string) []term {
	lower := lowerASCII(shown)
	var out []term
	for i, t := range terms {
		if hasTerm(lower, t) {
			if out == nil {
				out = slices.Clone(terms)
			}
			out[i].weight = 0
		}
	}
	if out == nil {
		return terms
	}
	return out
}

// densest returns where the window of size bytes over the matches ms
// starts, and the span [a, b) of its densest cluster; 0, 0, 0 for none.
func densest(ms []match, terms []term, size int) (start, a, b int) {
	bestA, bestB, bestScore := 0, 0, -1.0
	count := make([]int, len(terms))
	score := 0.0
	j := 0 // matches [i, j) lie in the span starting at ms[i]
	lastEnd := 0
	for i := range ms {
		if j <= i {
			j, score, lastEnd = i, 0, 0
			clear(count)
		}
		for j < len(ms) && ms[j].end <= ms[i].pos+size {
			t := ms[j].term
			if count[t] == 0 {
				score += terms[t].weight
			}
			count[t]++
			lastEnd = max(lastEnd, ms[j].end)
			j++
		}
		if span := lastEnd - ms[i].pos; score > bestScore || score == bestScore && span < bestB-bestA {
			bestA, bestB, bestScore = ms[i].pos, lastEnd, score
		}
		t := ms[i].term
		if count[t]--; count[t] == 0 {
			score -= terms[t].weight
		}
	}
	return max(bestA-(size-(bestB-bestA))/3, 0), bestA, bestB
}

// callCap bounds the call line that leads a window, which may take half
// of a window of 2*minCall bytes or more.
const (
	callCap = 200
	minCall = 60
)

// callScan bounds how far above a window callOf looks for its call.
const callScan = 32 << 10

// callOf returns the line of the shell command whose output holds
// text[start:] (the "$ cmd" line above the "→ " line that opens the
// output), or of the command start is in, cut to callCap, and where the
// line after it begins; "" when start is in a message, in another tool's
// output, at the head, or the command is out of reach.
func callOf(text string, start int) (string, int) {
	if start <= 0 || start > len(text) {
		return "", 0
	}
	ls := strings.LastIndexByte(text[:start], '\n') + 1 // the line holding start
	message := func(line string) bool {
		return strings.HasPrefix(line, "User: ") || strings.HasPrefix(line, "Assistant: ") || strings.HasPrefix(line, chunk.ContPrefix)
	}
	rest := text[ls:]
	switch {
	case strings.HasPrefix(rest, "$ "):
		le := strings.IndexByte(rest, '\n')
		if le < 0 {
			return "", 0
		}
		return clip(rest[:le], callCap), ls + le + 1
	case message(rest):
		return "", 0
	}
	arrow := strings.HasPrefix(rest, "→ ")
	for end := ls - 1; end > 0 && start-end < callScan; {
		b := strings.LastIndexByte(text[:end], '\n') + 1
		line := text[b:end]
		switch {
		case arrow && strings.HasPrefix(line, "$ "):
			// A command of several lines is named by its first.
			return clip(line, callCap), end + 1
		case message(line) || strings.HasPrefix(line, "$ ") || arrow && strings.HasPrefix(line, "→ "):
			return "", 0
		case strings.HasPrefix(line, "→ "):
			arrow = true
		}
		end = b - 1
	}
	return "", 0
}

// cut returns up to size bytes of text from about start, keeping [a, b)
// when it fits, moving both edges to line boundaries when one is near and
// the span stays whole, and marking cut edges with "…".
func cut(text string, start, a, b, size int) string {
	const ell = "…"
	if size <= 2*len(ell) {
		// No room for the marks: the text's first whole runes.
		end := min(size, len(text))
		for end > 0 && end < len(text) && !utf8.RuneStart(text[end]) {
			end--
		}
		return text[:end]
	}
	snap := min(lineSnap, size/4)
	if start > 0 {
		if nl := strings.LastIndexByte(text[max(start-snap, 0):start], '\n'); nl >= 0 && b-(max(start-snap, 0)+nl+1) <= size-2*len(ell) {
			start = max(start-snap, 0) + nl + 1
		} else if nl := strings.IndexByte(text[start:min(start+snap, len(text))], '\n'); nl >= 0 && start+nl < a {
			start += nl + 1
		}
	}
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	room := size
	if start > 0 {
		room -= len(ell)
	}
	end := min(start+room, len(text))
	if end < len(text) {
		end = start + room - len(ell)
		if nl := strings.LastIndexByte(text[start:end], '\n'); nl > 0 && start+nl >= b && end-(start+nl) <= snap {
			end = start + nl
		}
		for end > start && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	body := strings.TrimRight(text[start:end], " \n")
	if end < len(text) {
		body += ell
	}
	if start > 0 {
		body = ell + body
	}
	return body
}
