package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
)

// DefaultRestoreBudget is the restore block's size when none is given, in
// characters (bytes).
const DefaultRestoreBudget = 4000

// Ranking constants of a restore; see the package documentation for the
// formula they enter.
const (
	// HalfLife is how many context windows it takes for an item's weight
	// to fall by a factor e.
	HalfLife = 2.0
	// JustCompactedBoost favours the window that was just compacted: its
	// details are the ones the fresh summary squeezed hardest.
	JustCompactedBoost = 1.25
	// SpecificityStep is the boost per rare token (path, identifier,
	// number, flag) in an item, up to SpecificityMax tokens.
	SpecificityStep = 0.12
	SpecificityMax  = 5
	// CountBoost scales the sublinear boost of items seen several times:
	// 1 + CountBoost·ln(count).
	CountBoost = 0.3
	// OpenErrorBoost favours errors no fix was seen for.
	OpenErrorBoost = 1.2
	// NoteWeight is the base weight of notes stored explicitly.
	NoteWeight = 1.2
)

// Caps of one rendered line, in bytes.
const (
	lineTextCap   = 200 // an item's text, head kept
	lineDetailCap = 160 // its detail (fix, purpose, reason)
	// A command's purpose and a value's source only say where it came
	// from; a fix's text is an edit whose error, in the detail, matters more.
	whereCap       = 60
	fixTextCap     = 120
	commandTextCap = 160 // a long command is mostly its file list
	blockTextCap   = 600 // a multi-line item: todo list, state note
	keyCap         = 160 // head of a text used as a novelty key
	minShrunkText  = 40  // smallest text worth showing when a line is cut to fit
	candidatesCap  = 60  // ranked candidates kept per section
)

// RestoreRequest asks for the block injected after a compaction.
type RestoreRequest struct {
	SessionID string
	Project   string
	// Window is the current context window (compactions so far); the
	// restore draws from earlier windows. With 0, every window is used.
	Window int
	// Summary is the compaction summary now in the model's context; items
	// it already quotes are skipped. When "", the summary recorded for the
	// window in the store is used, if any.
	Summary string
	Budget  int // characters; DefaultRestoreBudget when <= 0
}

// Block is text for Claude's context and the archive rows it came from.
type Block struct {
	Text     string // markdown, at most the budget; "" when nothing is worth injecting
	ChunkIDs []int64
	ItemIDs  []int64
	// Reason says briefly why this text was chosen, for the audit log.
	Reason string
}

type section int

const (
	secState section = iota
	secConstraints
	secDecisions
	secErrors
	secFiles
	secCommands
	secValues
	secNotes
	// secRecent takes what the ranked sections leave of the budget: the
	// last steps before the compaction, verbatim, newest first.
	secRecent
	numSections
)

var sectionTitles = [numSections]string{
	"### Current state / task\n",
	"### User constraints\n",
	"### Decisions\n",
	"### Errors\n",
	"### Files changed\n",
	"### Commands that worked\n",
	"### Values and names (settings, definitions, UI text, ids, commits)\n",
	"### Notes / markers\n",
	"### Last steps before the compaction (verbatim excerpts)\n",
}

// sectionShare is each section's share of the budget. Shares only order
// the interleaving of sections: what one section cannot use goes to the
// others.
var sectionShare = [numSections]float64{0.20, 0.12, 0.14, 0.20, 0.12, 0.12, 0.16, 0.10, 0}

// sectionQueries fetch each section's newest items with its own bound, so
// that a flood of commands never crowds out the few constraints. The bounds
// keep a restore fast (reading a row costs microseconds) while leaving more
// candidates than a 16,000-character block shows; older items have decayed.
var sectionQueries = []struct {
	sec   section
	kinds []carryover.ItemKind
	limit int
}{
	{secState, []carryover.ItemKind{carryover.KindGoal, carryover.KindTodo}, 12},
	{secConstraints, []carryover.ItemKind{carryover.KindConstraint}, 40},
	{secDecisions, []carryover.ItemKind{carryover.KindDecision}, 40},
	{secErrors, []carryover.ItemKind{carryover.KindError, carryover.KindFix}, 80},
	{secFiles, []carryover.ItemKind{carryover.KindFileEdit}, 60},
	{secCommands, []carryover.ItemKind{carryover.KindCommand}, 60},
	{secValues, []carryover.ItemKind{carryover.KindValue}, 40},
	{secNotes, []carryover.ItemKind{carryover.KindMarker, carryover.KindNote}, 40},
}

// defaultWeights stand in for Item.Weight when the extractor left it 0.
var defaultWeights = map[carryover.ItemKind]float64{
	carryover.KindGoal:       0.8,
	carryover.KindTodo:       0.8,
	carryover.KindDecision:   0.9,
	carryover.KindConstraint: 1.0,
	carryover.KindError:      0.85,
	carryover.KindFix:        0.85,
	carryover.KindFileEdit:   0.7,
	carryover.KindCommand:    0.6,
	carryover.KindMarker:     0.9,
	carryover.KindValue:      0.6,
	carryover.KindNote:       1.0,
}

// entry is one candidate line of the block.
type entry struct {
	sec     section
	score   float64
	itemID  int64
	chunkID int64
	open    bool   // an unresolved error
	label   string // "fix: ", "goal: ", ...
	text    string
	sep     string // between text and detail
	detail  string
	prov    string // "(L812)": the transcript line, which get and search take
	multi   bool   // rendered as an indented block of lines
	code    bool   // text in backticks
	dupKey  string
	toks    []uint64 // sorted hashes of its distinct words
	full    string   // rendered with the default caps
	// textCap and detailCap override lineTextCap and lineDetailCap when > 0.
	textCap, detailCap int
}

// render renders the entry with its text and detail cut to the caps.
func (e *entry) render(textCap, detailCap int) string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(e.label)
	if e.multi {
		b.WriteString(e.prov)
		b.WriteString(":\n")
		left := textCap
		for l := range strings.SplitSeq(e.text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			l = clip(l, min(lineTextCap, left))
			if l == "" {
				break
			}
			b.WriteString("  ")
			b.WriteString(l)
			b.WriteByte('\n')
			left -= len(l)
			if left < minShrunkText/2 {
				break
			}
		}
		return b.String()
	}
	t := clip(e.text, textCap)
	if e.code && !strings.Contains(t, "`") {
		t = "`" + t + "`"
	}
	b.WriteString(t)
	if e.detail != "" && detailCap > 0 {
		if d := clip(e.detail, detailCap); d != "" {
			b.WriteString(e.sep)
			b.WriteString(d)
		}
	}
	if e.prov != "" {
		b.WriteByte(' ')
		b.WriteString(e.prov)
	}
	b.WriteByte('\n')
	return b.String()
}

// fit renders the entry in at most room bytes, cutting its text and
// detail, or returns "" when too little of it would be left.
func (e *entry) fit(room int) string {
	if len(e.full) <= room {
		return e.full
	}
	fixed := len(e.render(0, 0)) + 2 // "…" of the cut text
	textCap := room - fixed
	if textCap < minShrunkText {
		return ""
	}
	s := e.render(textCap, 0)
	if len(s) > room {
		return ""
	}
	return s
}

// Restore selects what the compaction summary most likely lost and renders
// it as a markdown block within the budget.
func Restore(ctx context.Context, st carryover.Store, req RestoreRequest) (Block, error) {
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultRestoreBudget
	}
	summary := req.Summary
	if summary == "" {
		s, err := compactionSummary(ctx, st, req.SessionID, req.Window)
		if err != nil {
			return Block{}, err
		}
		summary = s
	}
	nov := newNovelty(summary, req.Project)

	var items [numSections][]carryover.Item
	maxLine := 1
	for _, q := range sectionQueries {
		got, err := st.Items(ctx, carryover.ItemFilter{
			SessionID:    req.SessionID,
			Kinds:        q.kinds,
			BeforeWindow: max(req.Window, 0),
			Limit:        q.limit,
		})
		if err != nil {
			return Block{}, fmt.Errorf("restore items: %w", err)
		}
		items[q.sec] = append(items[q.sec], got...)
		for _, it := range got {
			maxLine = max(maxLine, it.Line)
		}
	}
	notes, err := restoreNotes(ctx, st, req.SessionID, req.Project)
	if err != nil {
		return Block{}, err
	}

	r := ranker{window: req.Window, maxLine: maxLine, project: req.Project}
	quoted := 0 // items left out because the summary quotes them
	var secs [numSections][]*entry
	secs[secState] = r.stateEntries(items[secState], notes, nov)
	for sec := secConstraints; sec < secRecent; sec++ {
		// Score every item, but render only the best: rendering and
		// near-duplicate tests cost more than scoring.
		type scored struct {
			it    carryover.Item
			score float64
		}
		var ss []scored
		for _, it := range items[sec] {
			if it.Kind == carryover.KindValue {
				it.Text = nov.unseenValues(it.Text)
			}
			if it.Text == "" || trivial(it) {
				continue
			}
			if nov.seen(it) {
				quoted++
				continue
			}
			ss = append(ss, scored{it, r.score(it)})
		}
		slices.SortStableFunc(ss, func(a, b scored) int { return cmpDesc(a.score, b.score) })
		var es []*entry
		for _, s := range ss[:min(len(ss), 2*candidatesCap)] {
			es = append(es, r.itemEntry(sec, s.it, s.score))
		}
		for _, n := range notes {
			if noteSection(n.Kind) == sec && !nov.seenText(n.Text) {
				es = append(es, r.noteEntry(sec, n))
			}
		}
		slices.SortStableFunc(es, func(a, b *entry) int { return cmpDesc(a.score, b.score) })
		secs[sec] = es
	}
	recent, err := st.Chunks(ctx, carryover.ChunkFilter{
		SessionID: req.SessionID, Turn: -1, BeforeWindow: max(req.Window, 0), Newest: true, Limit: recentChunks,
	})
	if err != nil {
		return Block{}, fmt.Errorf("restore chunks: %w", err)
	}
	secs[secRecent] = recentEntries(recent, nov)
	dedupe(&secs)

	header := fmt.Sprintf("## carryover: restored after compaction (session %s, window %d)\n"+
		"Exact details from before the compaction that the summary may have dropped. More: `carryover search \"<words>\"`.\n",
		carryover.ShortID(req.SessionID), req.Window)
	chosen := fill(interleave(secs), budget-len(header))
	if len(chosen) == 0 {
		return Block{}, nil
	}
	blk := renderBlock(header, chosen)
	candidates := 0
	for _, es := range secs {
		candidates += len(es)
	}
	blk.Reason = restoreReason(req.Window, blk, len(chosen), candidates, quoted, budget)
	return blk, nil
}

// restoreReason sums up what a restore holds and what it left out.
func restoreReason(window int, blk Block, chosen, candidates, quoted, budget int) string {
	notes := chosen - len(blk.ItemIDs) - len(blk.ChunkIDs) // entries with neither id
	var b strings.Builder
	if window > 0 {
		fmt.Fprintf(&b, "restore after compaction %d: ", window)
	} else {
		b.WriteString("restore: ")
	}
	b.WriteString(plural(len(blk.ItemIDs), "item"))
	b.WriteString(", " + plural(len(blk.ChunkIDs), "chunk"))
	if notes > 0 {
		b.WriteString(", " + plural(notes, "note"))
	}
	fmt.Fprintf(&b, " in %d of %d chars", len(blk.Text), budget)
	if left := candidates - chosen; left > 0 {
		fmt.Fprintf(&b, "; %d more candidates did not fit", left)
	}
	if quoted > 0 {
		fmt.Fprintf(&b, "; %s left out as already in the summary", plural(quoted, "item"))
	}
	return b.String()
}

// plural says "1 item", "2 items".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Limits of the last-steps section.
const (
	recentChunks  = 12  // chunks fetched
	recentTextCap = 500 // bytes of one chunk's excerpt
)

// recentEntries renders the last chunks before the compaction, newest
// first: the summary compresses the end of a window hardest, and exact
// values, paths and outputs of those last steps are what the next turn
// needs. Lines the summary already quotes, lines an earlier excerpt already
// shows (a long write continued over several chunks) and lines without
// information (closing brackets, omission markers) are left out.
func recentEntries(chunks []carryover.Chunk, nov novelty) []*entry {
	var es []*entry
	shown := map[string]bool{}
	for _, c := range chunks {
		var lines []string
		for l := range strings.SplitSeq(c.Text, "\n") {
			l = strings.TrimSpace(l)
			k := normSpace(l)
			if shown[k] || !informativeLine(l) || nov.seenText(l) {
				continue
			}
			shown[k] = true
			lines = append(lines, l)
		}
		if len(lines) == 0 {
			continue
		}
		e := &entry{
			sec:     secRecent,
			chunkID: c.ID,
			text:    strings.Join(lines, "\n"),
			prov:    fmt.Sprintf("(L%d-%d)", c.FirstLine, c.LastLine),
			multi:   true,
		}
		e.finish()
		es = append(es, e)
	}
	return es
}

// informativeLine reports whether an excerpt line says something: at
// least two words of three letters or more, or one specific token (a path,
// identifier, number, flag). Closing brackets, "end", "…" and omission
// markers carry nothing a model could use.
func informativeLine(l string) bool {
	if strings.HasPrefix(l, "… [") && strings.HasSuffix(l, "omitted] …") {
		return false
	}
	if specificity(l, 1) > 0 {
		return true
	}
	n := 0
	for _, w := range words(l) {
		if len(w) >= 3 {
			n++
		}
	}
	return n >= 2
}

// compactionSummary returns the summary stored for the compaction that
// opened window (the last one when window <= 0).
func compactionSummary(ctx context.Context, st carryover.Store, sessionID string, window int) (string, error) {
	cs, err := st.Compactions(ctx, sessionID)
	if err != nil {
		return "", fmt.Errorf("restore compactions: %w", err)
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if window <= 0 || cs[i].Window == window {
			return cs[i].Summary, nil
		}
	}
	return "", nil
}

// restoreNotes returns the session's notes and the project's decisions,
// constraints and plain notes, each once.
func restoreNotes(ctx context.Context, st carryover.Store, sessionID, project string) ([]carryover.Note, error) {
	notes, err := st.Notes(ctx, "", sessionID)
	if err != nil {
		return nil, fmt.Errorf("restore notes: %w", err)
	}
	if project == "" {
		return notes, nil
	}
	shared, err := st.Notes(ctx, project, "")
	if err != nil {
		return nil, fmt.Errorf("restore project notes: %w", err)
	}
	have := map[int64]bool{}
	for _, n := range notes {
		have[n.ID] = true
	}
	for _, n := range shared {
		if !have[n.ID] && n.Kind != "state" {
			notes = append(notes, n)
		}
	}
	return notes, nil
}

func noteSection(kind string) section {
	switch kind {
	case "decision":
		return secDecisions
	case "constraint":
		return secConstraints
	case "state":
		return secState
	}
	return secNotes
}

// ranker scores items; see the package documentation.
type ranker struct {
	window  int
	maxLine int
	project string
}

func (r ranker) score(it carryover.Item) float64 {
	w := it.Weight
	if w <= 0 {
		w = defaultWeights[it.Kind]
	}
	recency := 0.5 + 0.5*float64(min(it.Line, r.maxLine))/float64(r.maxLine)
	age := max(r.window-1-it.Window, 0)
	s := w * recency * math.Exp(-float64(age)/HalfLife)
	if age == 0 && r.window > 0 {
		s *= JustCompactedBoost
	}
	s *= 1 + SpecificityStep*float64(specificity(it.Text+" "+it.Detail, SpecificityMax))
	if it.Count > 1 {
		s *= 1 + CountBoost*math.Log(float64(it.Count))
	}
	if it.Kind == carryover.KindError && !it.Resolved {
		s *= OpenErrorBoost
	}
	return s
}

func (r ranker) itemEntry(sec section, it carryover.Item, score float64) *entry {
	e := &entry{
		sec:    sec,
		score:  score,
		itemID: it.ID,
		text:   oneLine(it.Text),
		detail: oneLine(it.Detail),
		sep:    " — ",
		prov:   fmt.Sprintf("(L%d)", it.Line),
	}
	switch it.Kind {
	case carryover.KindError:
		e.open = !it.Resolved
		if e.open {
			e.label = "open: "
		}
	case carryover.KindFix:
		e.label = "fix: "
		e.code = true
		e.textCap = fixTextCap
	case carryover.KindFileEdit:
		e.text = relPath(e.text, r.project)
		e.code = true
	case carryover.KindCommand:
		e.text = shortCommand(e.text)
		e.code = true
		e.textCap, e.detailCap = commandTextCap, whereCap
	case carryover.KindValue:
		e.detailCap = whereCap
	case carryover.KindDecision:
		e.sep = " — because: "
	}
	e.finish()
	return e
}

func (r ranker) noteEntry(sec section, n carryover.Note) *entry {
	e := &entry{
		sec:   sec,
		score: NoteWeight * (1 + SpecificityStep*float64(specificity(n.Text, SpecificityMax))),
		text:  oneLine(n.Text),
		prov:  "(note)",
	}
	e.finish()
	return e
}

// stateEntries returns the current state in a fixed order: the latest
// state note, the latest todo list, the latest goals.
func (r ranker) stateEntries(items []carryover.Item, notes []carryover.Note, nov novelty) []*entry {
	var es []*entry
	for i := len(notes) - 1; i >= 0; i-- {
		if notes[i].Kind == "state" {
			e := &entry{sec: secState, label: "state ", text: notes[i].Text, prov: "(note)", multi: true}
			e.finish()
			es = append(es, e)
			break
		}
	}
	var todo bool
	goals := 0
	for _, it := range items { // newest first
		switch {
		case it.Kind == carryover.KindTodo && !todo:
			todo = true
			e := &entry{sec: secState, itemID: it.ID, label: "todo list ", text: it.Text,
				prov: fmt.Sprintf("(L%d)", it.Line), multi: true}
			e.finish()
			es = append(es, e)
		case it.Kind == carryover.KindGoal && goals < 2 && !nov.seen(it) && !trivial(it):
			goals++
			e := r.itemEntry(secState, it, 0)
			e.label = "goal: "
			e.finish()
			es = append(es, e)
		}
	}
	// The order above is the order of importance.
	for i, e := range es {
		e.score = float64(len(es) - i)
	}
	return es
}

// finish computes what dedupe and fill need.
func (e *entry) finish() {
	e.dupKey = normSpace(e.text)
	switch {
	case e.sec == secErrors:
		e.dupKey = maskDigits(e.dupKey)
	case e.code:
		e.dupKey = commandKey(e.dupKey)
	}
	e.toks = tokenHashes(e.text)
	if e.sec == secCommands {
		// The same command on another numbered task, port or line is
		// the same command for the next step.
		e.dupKey = maskDigits(e.dupKey)
		e.toks = tokenHashes(maskDigits(e.text))
	}
	if e.sec == secRecent {
		e.full = e.render(recentTextCap, 0)
	} else if e.multi {
		e.full = e.render(blockTextCap, 0)
	} else {
		e.full = e.render(cmp.Or(e.textCap, lineTextCap), cmp.Or(e.detailCap, lineDetailCap))
	}
}

// dedupe drops near-duplicates: entries whose text equals one already kept
// (for errors: with digits masked), whose token set overlaps a kept one's by NearDupJaccard,
// or whose text is shown as another entry's detail (a fix already named next
// to its error). Earlier sections and higher scores win.
func dedupe(secs *[numSections][]*entry) {
	shown := map[string]bool{}
	for _, e := range secs[secErrors] {
		if e.detail != "" {
			shown[normSpace(e.detail)] = true
			// A resolved error's detail reads "fixed by: <fix> — in <call>".
			if fix, ok := strings.CutPrefix(e.detail, "fixed by: "); ok {
				fix, _, _ = strings.Cut(fix, " — in ")
				shown[normSpace(fix)] = true
			}
		}
	}
	for sec := range secs {
		var kept []*entry
	next:
		for _, e := range secs[sec] {
			if len(kept) >= candidatesCap {
				break
			}
			if e.dupKey == "" || !e.multi && (shown[e.dupKey] || shown[normSpace(e.text)]) {
				continue
			}
			for _, k := range kept {
				if jaccard(e.toks, k.toks) >= NearDupJaccard {
					continue next
				}
			}
			shown[e.dupKey] = true
			kept = append(kept, e)
		}
		secs[sec] = kept
	}
}

// NearDupJaccard is the token-set overlap above which two lines of a
// section count as the same fact.
const NearDupJaccard = 0.8

// jaccard is the overlap |a∩b|/|a∪b| of two sorted hash sets.
func jaccard(a, b []uint64) float64 {
	if len(a) < 3 || len(b) < 3 {
		return 0 // too short to judge: the exact dupKey decides
	}
	if float64(min(len(a), len(b))) < NearDupJaccard*float64(max(len(a), len(b))) {
		return 0 // sizes alone rule out the threshold
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// maskDigits replaces digit runs with "#": the same error at another line
// number is the same error.
func maskDigits(s string) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		if '0' <= r && r <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// tokenHashes returns the sorted distinct FNV-1a hashes of the words of s.
func tokenHashes(s string) []uint64 {
	ws := words(lowerASCII(s))
	hs := make([]uint64, 0, len(ws))
	for _, w := range ws {
		h := uint64(14695981039346656037)
		for i := 0; i < len(w); i++ {
			h ^= uint64(w[i])
			h *= 1099511628211
		}
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// interleave orders all entries into one sequence that does not depend on
// the budget: each step takes the best remaining entry of the section that
// has used the smallest part of its share so far. A section that runs out
// leaves its share to the others. Any budget then takes a prefix of this
// sequence, so a bigger budget always shows a superset.
func interleave(secs [numSections][]*entry) []*entry {
	var used [numSections]float64
	var next [numSections]int
	var seq []*entry
	for {
		best := section(-1)
		for sec := range secRecent {
			if next[sec] >= len(secs[sec]) {
				continue
			}
			if best < 0 || used[sec]/sectionShare[sec] < used[best]/sectionShare[best] {
				best = sec
			}
		}
		if best < 0 {
			// The last steps only take what the ranked sections leave.
			return append(seq, secs[secRecent]...)
		}
		e := secs[best][next[best]]
		next[best]++
		cost := len(e.full)
		if used[best] == 0 {
			cost += len(sectionTitles[best])
		}
		used[best] += float64(cost)
		seq = append(seq, e)
	}
}

// picked is an entry with the text it is shown with.
type picked struct {
	*entry
	line string
}

// fill takes the longest prefix of seq that fits in room bytes, the last
// entry possibly cut to fit.
func fill(seq []*entry, room int) []picked {
	var out []picked
	var opened [numSections]bool
	for _, e := range seq {
		head := 0
		if !opened[e.sec] {
			head = len(sectionTitles[e.sec])
		}
		if len(e.full)+head <= room {
			out = append(out, picked{e, e.full})
			room -= len(e.full) + head
			opened[e.sec] = true
			continue
		}
		if line := e.fit(room - head); line != "" {
			out = append(out, picked{e, line})
		}
		break
	}
	return out
}

func renderBlock(header string, chosen []picked) Block {
	var b strings.Builder
	b.WriteString(header)
	var blk Block
	for sec := range numSections {
		var lines []picked
		for _, p := range chosen {
			if p.sec == sec {
				lines = append(lines, p)
			}
		}
		if len(lines) == 0 {
			continue
		}
		if sec == secErrors {
			// Open errors first; selection order (score) within each group.
			slices.SortStableFunc(lines, func(a, b picked) int {
				switch {
				case a.open == b.open:
					return 0
				case a.open:
					return -1
				}
				return 1
			})
		}
		b.WriteString(sectionTitles[sec])
		for _, p := range lines {
			b.WriteString(p.line)
			if p.itemID != 0 {
				blk.ItemIDs = append(blk.ItemIDs, p.itemID)
			}
			if p.chunkID != 0 {
				blk.ChunkIDs = append(blk.ChunkIDs, p.chunkID)
			}
		}
	}
	blk.Text = b.String()
	return blk
}

// novelty tells whether the summary already holds an item's key strings.
type novelty struct {
	summary string // normalised
	project string
}

func newNovelty(summary, project string) novelty {
	return novelty{summary: normSpace(summary), project: project}
}

// seen reports whether the summary quotes the item's key string: the
// path (absolute or project-relative), the command, or the head of the
// error or statement. A todo list is never considered seen: it is state.
func (n novelty) seen(it carryover.Item) bool {
	if n.summary == "" || it.Kind == carryover.KindTodo {
		return false
	}
	if it.Kind == carryover.KindFileEdit {
		return n.seenText(it.Text) || n.seenText(relPath(it.Text, n.project))
	}
	return n.seenText(it.Text)
}

// valueSep joins the values of one value item (chunk's valueSep).
const valueSep = " · "

// unseenValues returns the values of a value item's text that the summary
// does not quote, or "" when it quotes them all.
func (n novelty) unseenValues(text string) string {
	if n.summary == "" {
		return text
	}
	var keep []string
	for v := range strings.SplitSeq(text, valueSep) {
		if !n.seenText(v) {
			keep = append(keep, v)
		}
	}
	return strings.Join(keep, valueSep)
}

func (n novelty) seenText(s string) bool {
	if n.summary == "" {
		return false
	}
	k := normSpace(s)
	if len(k) > keyCap {
		k = strings.TrimSpace(strings.TrimSuffix(clip(k, keyCap), "…"))
	}
	return len(k) >= 4 && containsBounded(n.summary, k)
}

// relPath returns p relative to the project root when it lies inside it.
func relPath(p, project string) string {
	if project == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(project, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// trivial reports items not worth restoring: navigation and inspection
// commands, cheap to rediscover, and goals without one informative word
// ("continue", "ok go on").
func trivial(it carryover.Item) bool {
	switch it.Kind {
	case carryover.KindCommand:
		return trivialCommand(it.Text)
	case carryover.KindGoal:
		for _, t := range queryTerms(it.Text) {
			if informative(t) || t.rare {
				return false
			}
		}
		return true
	}
	return false
}

// commandKey reduces a normalised command to what it runs: the same
// command piped into another head or tail count is the same command.
func commandKey(cmd string) string {
	for _, cut := range []string{" | head", " | tail"} {
		if i := strings.Index(cmd, cut); i > 0 {
			cmd = cmd[:i]
		}
	}
	return strings.TrimSpace(strings.ReplaceAll(cmd, "2>&1", ""))
}

// shortCommand drops what only shapes a command's output in a transcript
// ("2>&1", a final "| head -N" or "| tail -N"): it costs budget and the
// model adds it back when it runs the command.
func shortCommand(cmd string) string {
	cmd = strings.ReplaceAll(cmd, " 2>&1", "")
	for {
		i := strings.LastIndexByte(cmd, '|')
		if i <= 0 || cmd[i-1] == '|' {
			return cmd
		}
		f := strings.Fields(cmd[i+1:])
		if len(f) == 0 || len(f) > 3 || f[0] != "head" && f[0] != "tail" || strings.ContainsAny(cmd[i+1:], ";&|<>$`") {
			return cmd
		}
		cmd = strings.TrimSpace(cmd[:i])
	}
}

// trivialCommand reports navigation and inspection commands.
func trivialCommand(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "ls", "cd", "pwd", "cat", "echo", "head", "tail", "wc", "which", "true", "clear", "tree", "file":
		return true
	case "git":
		return len(f) == 1 || slices.Contains([]string{"status", "diff", "log", "show", "branch", "add"}, f[1])
	}
	return false
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
