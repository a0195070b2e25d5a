package rank

import (
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
)

// The rules below need a hit's text, which a store reads only for the hits
// it returns, so they apply to a store's hits after Fuse, the same for
// every store and every caller (search, the MCP tool, recall):
//
//   - DropNoise: a chunk of interrupted-request markers, boilerplate or
//     empty acknowledgements never ranks (chunk.Noise);
//   - ByOutcome: for a "how do I …" query a run of a command that worked
//     outranks the same command's failed runs, and for an error query the
//     failed runs outrank the successful ones;
//   - CapDocuments: one long pasted document or tool output, split over
//     several chunks, takes at most a few of the slots.

// Intent is what a query asks for, as far as the outcome of commands goes.
type Intent int

// Intents.
const (
	IntentAny   Intent = iota // neither, or both: outcomes keep their rank
	IntentHowTo               // how to do something: the run that worked
	IntentError               // an error: the runs that failed
)

func (in Intent) String() string {
	switch in {
	case IntentHowTo:
		return "how-to"
	case IntentError:
		return "error"
	}
	return "any"
}

// howToCues mark a question about how something is done (matched on the
// lowercased query with single spaces). "how many" or "how is X
// configured" ask for a value, not a command, so "how" alone is no cue.
var howToCues = []string{"how do i ", "how do you ", "how do we ", "how to ", "how can i ", "how can we ",
	"how did i ", "how did you ", "how did we ", "how should i ", "how should we ", "how would i ",
	"how was it run", "how were they run", "what's the way to ", "the way to "}

// howToWords mark it as whole words.
var howToWords = []string{"command", "commands", "invocation", "incantation"}

// errorWords mark a question about an error, or a pasted error message, as
// whole words.
var errorWords = []string{"error", "errors", "err", "fail", "fails", "failed", "failing", "failure", "failures",
	"exception", "traceback", "panic", "panicked", "crash", "crashed", "crashes", "broken", "fatal", "undefined",
	"denied", "refused", "cannot", "can't", "couldn't", "exit", "stacktrace", "segfault", "timeout", "timed"}

// QueryIntent reads a query's intent from its words: error words ("error",
// "failed", "why does … fail", a pasted error message) make it an error
// query, a how-to phrase ("how do I …", "which command …") a how-to query;
// both, or neither, IntentAny.
func QueryIntent(query string) Intent {
	low := " " + strings.Join(strings.Fields(strings.ToLower(query)), " ") + " "
	howTo := false
	for _, c := range howToCues {
		if strings.Contains(low, " "+c) {
			howTo = true
			break
		}
	}
	isErr := false
	for _, w := range strings.FieldsFunc(low, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'' || r >= 0x80)
	}) {
		for _, cue := range howToWords {
			howTo = howTo || w == cue
		}
		// TypeError, RuntimeError, NullPointerException: a pasted error.
		isErr = isErr || strings.HasSuffix(w, "error") || strings.HasSuffix(w, "exception")
		for _, cue := range errorWords {
			isErr = isErr || w == cue
		}
	}
	switch {
	case howTo && !isErr:
		return IntentHowTo
	case isErr && !howTo:
		return IntentError
	}
	return IntentAny
}

// DropNoise splits hits, in order, into those worth ranking and the
// noise (chunk.Noise).
func DropNoise(hits []carryover.Hit) (kept, noise []carryover.Hit) {
	for _, h := range hits {
		if chunk.Noise(h.Chunk.Text) {
			noise = append(noise, h)
		} else {
			kept = append(kept, h)
		}
	}
	return kept, noise
}

// outcomes are the commands (chunk.CommandKey) a chunk ran successfully
// and those it ran and failed.
type outcomes struct{ ok, failed map[string]bool }

func outcomesOf(text string) outcomes {
	var o outcomes
	for _, r := range chunk.Runs(text) {
		if r.Key == "" {
			continue
		}
		switch {
		case r.OK:
			if o.ok == nil {
				o.ok = map[string]bool{}
			}
			o.ok[r.Key] = true
		case r.Failed:
			if o.failed == nil {
				o.failed = map[string]bool{}
			}
			o.failed[r.Key] = true
		}
	}
	return o
}

// ByOutcome reorders hits for the query's intent. For IntentHowTo, a hit
// that ran a command and saw it fail, and never work, moves right after
// the hits that ran the same command (chunk.CommandKey) and saw it work:
// they take its place, and the failure stays next to them for context.
// For IntentError it is the other way round. Other hits keep their order,
// and IntentAny changes nothing.
func ByOutcome(hits []carryover.Hit, in Intent) []carryover.Hit {
	if in == IntentAny || len(hits) < 2 {
		return hits
	}
	outs := make([]outcomes, len(hits))
	failures := false
	for i, h := range hits {
		outs[i] = outcomesOf(h.Chunk.Text)
		failures = failures || len(outs[i].failed) > 0
	}
	if !failures {
		return hits
	}
	// want: the outcomes the intent looks for; other: the opposite ones.
	want := func(i int) map[string]bool { return outs[i].ok }
	other := func(i int) map[string]bool { return outs[i].failed }
	if in == IntentError {
		want, other = other, want
	}
	// beats reports whether hit j shows the wanted outcome of a command
	// that hit i shows only the other outcome of.
	beats := func(j, i int) bool {
		for head := range other(i) {
			if want(j)[head] && !want(i)[head] {
				return true
			}
		}
		return false
	}
	out := make([]carryover.Hit, 0, len(hits))
	done := make([]bool, len(hits))
	var emit func(i int)
	emit = func(i int) {
		// Marked first, so that two hits each waiting for the other
		// cannot loop.
		done[i] = true
		for j := range hits {
			if !done[j] && beats(j, i) {
				emit(j)
			}
		}
		out = append(out, hits[i])
	}
	for i := range hits {
		if !done[i] {
			emit(i)
		}
	}
	return out
}

// DocCap is how many chunks of one document may fill limit slots: 2 of 8,
// and never fewer than 2.
func DocCap(limit int) int { return max(2, limit/4) }

// maxPieceGap bounds how many chunks apart two pieces of one part can be.
// A part is cut into pieces of at most a chunk each and those are stored
// one after the other; the chunker keeps parts to a few chunks.
const maxPieceGap = 8

// CapDocuments keeps, in order, at most perDoc hits of each document and
// returns the others as extra. A document is one part of a turn (a pasted
// prompt, an assistant's text, a tool call with its output) split over
// several chunks: each piece after the first starts with chunk.ContPrefix
// and the part's head, and all pieces share the turn and the part's
// transcript lines.
func CapDocuments(hits []carryover.Hit, perDoc int) (kept, extra []carryover.Hit) {
	doc := documents(hits)
	count := map[int]int{}
	for i, h := range hits {
		if count[doc[i]] >= perDoc {
			extra = append(extra, h)
			continue
		}
		count[doc[i]]++
		kept = append(kept, h)
	}
	return kept, extra
}

// documents labels each hit with its document: the index of one hit of
// it.
func documents(hits []carryover.Hit) []int {
	parent := make([]int, len(hits))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i, h := range hits {
		head, ok := chunk.Continuation(h.Chunk.Text)
		if !ok {
			continue
		}
		for j, o := range hits {
			if j != i && samePart(h.Chunk, head, o.Chunk) {
				parent[find(j)] = find(i)
			}
		}
	}
	doc := make([]int, len(hits))
	for i := range hits {
		doc[i] = find(i)
	}
	return doc
}

// samePart reports whether chunk o holds a piece of the part whose
// continuation piece c is (head is the head c repeats): another
// continuation of the same head, or the first piece, an earlier chunk that
// holds the head; in both cases of the same session and turn, close in
// sequence, with transcript lines that overlap or touch c's.
func samePart(c carryover.Chunk, head string, o carryover.Chunk) bool {
	if o.SessionID != c.SessionID || o.Turn != c.Turn || o.Sidechain != c.Sidechain || o.AgentID != c.AgentID ||
		o.FirstLine > c.LastLine+1 || c.FirstLine > o.LastLine+1 || abs(o.Seq-c.Seq) > maxPieceGap {
		return false
	}
	if h, ok := chunk.Continuation(o.Text); ok {
		return h == head
	}
	if o.Seq >= c.Seq {
		return false
	}
	// The head is the part's first line shortened ("…"), on one line.
	head = strings.TrimSpace(strings.TrimSuffix(head, "…"))
	return head == "" || strings.Contains(strings.Join(strings.Fields(o.Text), " "), strings.Join(strings.Fields(head), " "))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
