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
	"github.com/carryover-dev/carryover/ident"
)

// The ranking of a restore's lost facts: candidates scored, near-duplicates
// dropped, kinds interleaved by their shares, the best that fit taken.

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

// section is a kind of lost fact; the order is the order a restore shows
// them in (open errors first).
type section int

const (
	secErrors section = iota
	secConstraints
	secDecisions
	secValues
	secNotes
	numSections
	secState = numSections // notes of kind state go to the Now part
)

// factLabels start each fact's line by its kind.
var factLabels = [numSections]string{"", "constraint: ", "decision: ", "value: ", "note: "}

// sectionShare is each kind's share of the facts' room. Shares only order
// the interleaving of kinds: what one kind cannot use goes to the others.
var sectionShare = [numSections]float64{0.32, 0.18, 0.2, 0.18, 0.12}

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
	key     string // what dedupe compares when it differs from text
	low     string // text in lower case
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
func restoreNotes(notes, shared []carryover.Note) []carryover.Note {
	have := map[int64]bool{}
	for _, n := range notes {
		have[n.ID] = true
	}
	for _, n := range shared {
		if !have[n.ID] && n.Kind != "state" {
			notes = append(notes, n)
		}
	}
	return notes
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
	if sec < numSections {
		e.label = factLabels[sec]
	}
	// Escaped line breaks of tool output say nothing.
	unescape := strings.NewReplacer(`\n`, " ", `\t`, " ")
	e.text, e.detail = oneLine(unescape.Replace(e.text)), oneLine(unescape.Replace(e.detail))
	switch it.Kind {
	case carryover.KindError:
		e.open = !it.Resolved
		if e.open {
			e.label = "open error: "
		} else {
			e.label = "error (fixed): "
		}
	case carryover.KindFix:
		e.label = "fix: "
		// Dedupe goes by the fix as stored; the line shows it compactly.
		e.key, e.text = e.text, compactFix(e.text, r.project)
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
	if sec < numSections {
		e.label = factLabels[sec]
	}
	e.finish()
	return e
}

// finish computes what dedupe and fill need.
func (e *entry) finish() {
	key := cmp.Or(e.key, e.text)
	e.dupKey = normSpace(key)
	switch {
	case e.sec == secErrors:
		e.dupKey = maskDigits(e.dupKey)
	case e.code:
		e.dupKey = commandKey(e.dupKey)
	}
	e.toks = tokenHashes(key)
	if e.multi {
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
			if e.dupKey == "" || !e.multi && (shown[e.dupKey] || shown[normSpace(cmp.Or(e.key, e.text))]) {
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
		for sec := range numSections {
			if next[sec] >= len(secs[sec]) {
				continue
			}
			if best < 0 || used[sec]/sectionShare[sec] < used[best]/sectionShare[best] {
				best = sec
			}
		}
		if best < 0 {
			return seq
		}
		e := secs[best][next[best]]
		next[best]++
		used[best] += float64(len(e.full))
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
	for _, e := range seq {
		if len(e.full) <= room {
			out = append(out, picked{e, e.full})
			room -= len(e.full)
			continue
		}
		if line := e.fit(room); line != "" {
			out = append(out, picked{e, line})
		}
		break
	}
	return out
}

// novelty tells whether the summary already holds an item's key strings.
type novelty struct {
	summary string // normalised
	project string
	// identSeen and textSeen remember seenIdent's and seenText's
	// answers by what was asked: a restore is composed up to three times,
	// and an answer costs a scan of the summary (and, for a text, its
	// normalising).
	identSeen, textSeen map[string]bool
	// grams holds the summary's 4-byte sequences, hashed: a string with one
	// the summary lacks is not in it, and most strings asked about are not.
	grams *gramSet
	freq  *byteFreq // the summary's bytes, counted
}

func newNovelty(summary, project string) novelty {
	n := novelty{summary: normSpace(summary), project: project, identSeen: map[string]bool{}, textSeen: map[string]bool{}}
	if n.summary != "" { // without a summary nothing is asked of it
		n.grams = newGramSet(n.summary)
		n.freq = newByteFreq(n.summary)
	}
	return n
}

// contains reports whether the summary holds s (byteFreq.contains).
func (n novelty) contains(s string) bool {
	if n.freq == nil {
		return strings.Contains(n.summary, s)
	}
	return n.freq.contains(n.summary, s)
}

// byteFreq counts the bytes of a text.
type byteFreq [256]int32

func newByteFreq(text string) *byteFreq {
	var f byteFreq
	f.add(text)
	return &f
}

// add counts the bytes of s, appended to the text.
func (f *byteFreq) add(s string) {
	for i := 0; i < len(s); i++ {
		f[s[i]]++
	}
}

// contains reports whether text, whose bytes f counts, holds s:
// strings.Contains, but scanning for the byte of s that is rarest in text
// rather than its first. An identifier starts with a common letter, and
// the texts a restore asks about are thousands of bytes: most of a scan's
// time went to the first byte's occurrences.
func (f *byteFreq) contains(text, s string) bool {
	if len(s) == 0 {
		return true
	}
	j := 0
	for i := 1; i < len(s); i++ {
		if f[s[i]] < f[s[j]] {
			j = i
		}
	}
	if f[s[j]] == 0 {
		return false
	}
	// s[j] at text[at] puts s at at-j: at runs from j to len(text)-len(s)+j.
	last := len(text) - len(s) + j
	for at := j; at <= last; at++ {
		k := strings.IndexByte(text[at:last+1], s[j])
		if k < 0 {
			return false
		}
		at += k
		if text[at-j:at-j+len(s)] == s {
			return true
		}
	}
	return false
}

// countedText is a text that grows, with its bytes counted for contains.
type countedText struct {
	b    strings.Builder
	freq byteFreq
}

// add appends s.
func (t *countedText) add(s string) {
	t.b.WriteString(s)
	t.freq.add(s)
}

// contains reports whether the text holds s (byteFreq.contains).
func (t *countedText) contains(s string) bool { return t.freq.contains(t.b.String(), s) }

// gramSet is a bitmap of the hashed 4-byte sequences of a text.
type gramSet [1 << 16 / 64]uint64

func gramAt(s string, i int) uint32 {
	g := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return (g * 2654435761) >> 16
}

func newGramSet(text string) *gramSet {
	var g gramSet
	for i := 0; i+4 <= len(text); i++ {
		h := gramAt(text, i)
		g[h/64] |= 1 << (h % 64)
	}
	return &g
}

// mayContain reports false when text cannot contain s: one of s's 4-byte
// sequences is not in it. Strings under 4 bytes may always be in it. (A
// test of every sequence costs less than one scan of the text, and an
// identifier made of the summary's words has most of them.)
func (g *gramSet) mayContain(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		h := gramAt(s, i)
		if g[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
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

// seenIdent reports whether the summary holds an identifier (compared
// case-insensitively, as a substring: an identifier has no spaces).
func (n novelty) seenIdent(id string) bool {
	if n.summary == "" || len(id) < 4 {
		return false
	}
	seen, ok := n.identSeen[id]
	if !ok {
		low := strings.ToLower(id)
		seen = n.grams.mayContain(low) && n.contains(low)
		n.identSeen[id] = seen
	}
	return seen
}

// seenAllIdents reports whether the summary holds every specific
// identifier of s (and s has one).
func (n novelty) seenAllIdents(s string) bool {
	ids := ident.Specifics(s)
	if n.summary == "" || len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		if !n.seenIdent(id) {
			return false
		}
	}
	return true
}

// seenText reports whether the summary holds s, white space collapsed
// and case folded (a long one by its first keyCap bytes), not as part of
// a longer word.
func (n novelty) seenText(s string) bool {
	if n.summary == "" {
		return false
	}
	seen, ok := n.textSeen[s]
	if !ok {
		k := normSpace(s)
		if len(k) > keyCap {
			k = strings.TrimSpace(strings.TrimSuffix(clip(k, keyCap), "…"))
		}
		seen = len(k) >= 4 && n.grams.mayContain(k) && containsBounded(n.summary, k)
		n.textSeen[s] = seen
	}
	return seen
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

// Marks of an edit in a fix's text: chunk writes each edit as
// `file: "old" → "new"` and joins the edits made before a passing re-run
// with "; ".
const (
	editOpen  = `: "`
	editArrow = `" → "`
	editJoin  = "; "
	// fixIdentCap is how many identifiers a fix line names per file.
	fixIdentCap = 6
)

// compactFix renders a fix made of edits as each file with the identifiers
// its new text brings in (`config/test.exs: +secret_key_base +Phoenix.ConnTest`):
// the file and the names the fix involved, in fewer bytes than the quoted
// texts, which a line cuts mid-word anyway. An edit that brings in no
// identifier, and a part that is not an edit, is kept as it was.
func compactFix(text, project string) string {
	type file struct {
		name string
		ids  []string
	}
	var files []*file
	var other []string
	for rest := text; rest != ""; {
		path, after, ok := strings.Cut(rest, editOpen)
		if !ok || strings.ContainsAny(path, " \t;") {
			part, tail, _ := strings.Cut(rest, editJoin)
			other = append(other, part)
			rest = tail
			continue
		}
		old, after, ok := strings.Cut(after, editArrow)
		if !ok {
			other = append(other, rest)
			break
		}
		// The new text ends at the quote before the next edit's join.
		newText, tail, _ := strings.Cut(after, `"`+editJoin)
		rest = tail
		newText = strings.TrimSuffix(strings.TrimSuffix(newText, "…"), `"`)
		before := map[string]bool{}
		for _, id := range ident.All(old) {
			before[id] = true
		}
		name := relPath(path, project)
		i := slices.IndexFunc(files, func(f *file) bool { return f.name == name })
		if i < 0 {
			files = append(files, &file{name: name})
			i = len(files) - 1
		}
		f := files[i]
		added := false
		for _, id := range ident.All(newText) {
			if before[id] || len(f.ids) >= fixIdentCap || slices.Contains(f.ids, id) || strings.HasSuffix(path, id) {
				continue
			}
			f.ids, added = append(f.ids, id), true
		}
		if !added && len(f.ids) == 0 {
			other = append(other, fmt.Sprintf("%s%s%s%s%s\"", path, editOpen, old, editArrow, newText))
		}
	}
	parts := make([]string, 0, len(files)+len(other))
	for _, f := range files {
		if len(f.ids) == 0 {
			continue
		}
		parts = append(parts, f.name+": +"+strings.Join(f.ids, " +"))
	}
	return strings.Join(append(parts, other...), editJoin)
}
