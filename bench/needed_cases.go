package bench

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/transcript"
)

// A needed case is one compaction (real, or a simulated cut) of a
// transcript: what the session needed after it, that the summary no
// longer held (see ../shared/bench/needed/README.md).
type neededCase struct {
	Session   string
	Path      string
	Cwd       string
	Boundary  int // 0-based index of the compact_boundary line (or of the cut)
	SummaryAt int // 0-based index of the summary line, -1 for a simulated cut
	Simulated bool
	Summary   string
	// Needed are the specific identifiers the model typed into its tool
	// calls after the compaction that occur before it and that the summary
	// lacks; FromMemory those it typed before anything in the window had
	// shown them again.
	Needed     []string
	FromMemory map[string]bool
	// Recent is the recent-identifiers baseline's ranking: identifiers of
	// the model's own tool inputs before the boundary, heaviest first.
	Recent []string
	// Tail is the rendered text before the boundary (the last-N-chars
	// baseline takes its end).
	Tail string
}

// rendered is the text of a user or assistant line as the benchmark
// renders it, and the strings the model typed into tool calls.
func rendered(e transcript.Entry) (text string, inputs []string) {
	var parts []string
	for _, b := range e.Blocks {
		switch b.Type {
		case "text", "tool_result":
			parts = append(parts, b.Text)
		case "tool_use":
			ss := ident.InputStrings(b.Input)
			parts = append(parts, b.Name)
			parts = append(parts, ss...)
			if e.Type == "assistant" {
				inputs = append(inputs, ss...)
			}
		}
	}
	return strings.Join(parts, "\n"), inputs
}

// readEntries reads a transcript as lines and their decoded entries (a
// line that does not decode gives a zero entry).
func readEntries(path string) ([][]byte, []transcript.Entry, error) {
	lines, err := ReadLines(path)
	if err != nil {
		return nil, nil, err
	}
	es := make([]transcript.Entry, len(lines))
	for i, l := range lines {
		if e, err := transcript.Decode(bytes.TrimSpace(l)); err == nil {
			es[i] = e
		}
	}
	return lines, es, nil
}

// neededCases finds the cases of one transcript: every real compaction,
// or, when there is none and cuts are given, simulated cuts at those
// fractions of its lines.
func neededCases(path, session string, cuts []float64) ([]neededCase, [][]byte, error) {
	lines, es, err := readEntries(path)
	if err != nil {
		return nil, nil, err
	}
	type cut struct{ b, s int }
	var found []cut
	for i, e := range es {
		if !e.IsCompactBoundary() {
			continue
		}
		c := cut{i, -1}
		for j := i + 1; j < len(es) && j <= i+5; j++ {
			if es[j].CompactSummary {
				c.s = j
				break
			}
		}
		found = append(found, c)
	}
	simulated := len(found) == 0
	if simulated {
		for _, f := range cuts {
			b := int(f * float64(len(lines)))
			// A cut lands before a user or assistant line, as a compaction does.
			for b < len(es) && es[b].Type != "user" && es[b].Type != "assistant" {
				b++
			}
			if b > 0 && b < len(lines) {
				found = append(found, cut{b, -1})
			}
		}
	}
	var out []neededCase
	for k, c := range found {
		// The session's project root at the compaction: its last cwd.
		cwd := ""
		for _, e := range es[:c.b] {
			if e.Cwd != "" {
				cwd = e.Cwd
			}
		}
		nc := neededCase{Session: session, Path: path, Cwd: cwd, Boundary: c.b, SummaryAt: c.s, Simulated: simulated}
		start := c.b
		if c.s >= 0 {
			nc.Summary = es[c.s].Text()
			start = c.s + 1
		} else if !simulated {
			start = c.b + 1
		}
		end := len(es)
		if !simulated && k+1 < len(found) {
			end = found[k+1].b
		}
		if simulated && k+1 < len(found) {
			end = len(es) // each cut stands alone: the window runs to the end
		}
		var before strings.Builder
		var inputs []string
		for _, e := range es[:c.b] {
			if e.Type != "user" && e.Type != "assistant" {
				continue
			}
			t, in := rendered(e)
			before.WriteString(t)
			before.WriteByte('\n')
			inputs = append(inputs, in...)
		}
		bt := before.String()
		ls := strings.ToLower(nc.Summary)
		nc.FromMemory = map[string]bool{}
		seen := map[string]bool{}
		var shown strings.Builder
		for _, e := range es[start:end] {
			if e.Type != "user" && e.Type != "assistant" {
				continue
			}
			for _, blk := range e.Blocks {
				if blk.Type == "tool_use" && e.Type == "assistant" {
					for _, s := range ident.InputStrings(blk.Input) {
						for _, id := range ident.All(s) {
							if seen[id] || !ident.Specific(id) {
								continue
							}
							if strings.Contains(bt, id) && !strings.Contains(ls, strings.ToLower(id)) {
								seen[id] = true
								nc.Needed = append(nc.Needed, id)
								if !strings.Contains(shown.String(), id) {
									nc.FromMemory[id] = true
								}
							}
						}
					}
				}
				t, _ := rendered(transcript.Entry{Type: e.Type, Blocks: []transcript.Block{blk}})
				shown.WriteString(t)
				shown.WriteByte('\n')
			}
		}
		nc.Tail = bt
		nc.Recent = recentIdents(inputs, ls)
		out = append(out, nc)
	}
	return out, lines, nil
}

// recentIdents ranks the specific identifiers of the model's tool inputs
// by the sum of the squares of their positions (later is heavier), minus
// those the summary holds.
func recentIdents(inputs []string, lowerSummary string) []string {
	weight := map[string]float64{}
	for i, s := range inputs {
		p := float64(i + 1)
		for _, id := range ident.All(s) {
			if ident.Specific(id) && !strings.Contains(lowerSummary, strings.ToLower(id)) {
				weight[id] += p * p
			}
		}
	}
	ids := make([]string, 0, len(weight))
	for id := range weight {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if weight[ids[i]] != weight[ids[j]] {
			return weight[ids[i]] > weight[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids
}

// packList joins identifiers, space-separated, into at most budget bytes.
func packList(ids []string, budget int) string {
	var b strings.Builder
	for _, id := range ids {
		if b.Len()+len(id)+1 > budget {
			continue
		}
		b.WriteString(id)
		b.WriteByte(' ')
	}
	return b.String()
}

// held reports whether a restore holds an identifier: verbatim, or, for a
// path under the project root, relative to it: the root the restore says
// its paths are relative to, else cwd. (Identifiers lose the leading slash
// of an absolute path: see ident.All.)
func held(text, id, cwd string) bool {
	if strings.Contains(text, id) {
		return true
	}
	if r := declaredRoot(text); r != "" {
		cwd = r
	}
	root := strings.Trim(cwd, "/")
	if root != "" {
		if rel, ok := strings.CutPrefix(strings.TrimPrefix(id, "/"), root+"/"); ok && rel != "" {
			return strings.Contains(text, rel)
		}
	}
	return false
}

// declaredRoot is the directory a restore's header says its paths are
// relative to ("…; paths relative to DIR; more: …"), or "".
func declaredRoot(text string) string {
	head, _, _ := strings.Cut(text, "\n###")
	_, rest, ok := strings.Cut(head, "; paths relative to ")
	if !ok {
		return ""
	}
	root, _, _ := strings.Cut(rest, "; more: ")
	if strings.ContainsRune(root, '\n') {
		return ""
	}
	return root
}

// score counts the needed and from-memory identifiers a text holds.
func (c neededCase) score(text string) (all, mem int) {
	for _, id := range c.Needed {
		if held(text, id, c.Cwd) {
			all++
			if c.FromMemory[id] {
				mem++
			}
		}
	}
	return all, mem
}

func (c neededCase) String() string {
	kind := "compaction"
	if c.Simulated {
		kind = "cut"
	}
	return fmt.Sprintf("%s %s at line %d", c.Session, kind, c.Boundary+1)
}
