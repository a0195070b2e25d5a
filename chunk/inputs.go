package chunk

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover/ident"
)

// maxInputsText caps a chunk's inputs item; the identifiers typed last are
// kept (a long Write lists many).
const maxInputsText = 1500

// An input tier says where in a tool call the model typed an identifier,
// which predicts whether it will type it again after a compaction (see
// carryover.KindInputs): the call's own arguments (paths, commands,
// patterns, prompts), or text it put into a file (an edit's strings, a
// whole file written). A third tier holds what the model did not type
// yet: the paths a task's spec it read names (see specPaths), the files
// the next steps of that task will touch.
const (
	tierArgument = iota
	tierText
	tierSpec
	numTiers
)

// inputTier is the tier of a string under an input's key (top: a key of
// the input itself, as Write's content is; a todo's content is not).
func inputTier(key string, top bool) int {
	switch {
	case key == "new_string", key == "old_string", key == "new_source", key == "content" && top:
		return tierText
	}
	return tierArgument
}

type tieredIdent struct {
	id   string
	tier int
}

// inputIdents returns the specific identifiers of a tool call's input,
// in order, each once with its best tier: what the model typed, which
// after a compaction it will need again (see package ident).
func inputIdents(raw json.RawMessage) []tieredIdent {
	var out []tieredIdent
	at := map[string]int{}
	for _, v := range ident.InputValues(raw) {
		tier := inputTier(v.Key, v.Top)
		for _, id := range ident.Rooted(v.Text) {
			if i, ok := at[id]; ok {
				out[i].tier = min(out[i].tier, tier)
			} else if ident.Specific(id) {
				at[id] = len(out)
				out = append(out, tieredIdent{id, tier})
			}
		}
	}
	return out
}

// chunkInputs joins the identifiers typed in a chunk's calls, in the order
// of their last use, within maxInputsText bytes (the last ones kept), one
// line per tier: the arguments' identifiers, then those of the text put
// into files, then the paths a spec named (a line may be empty; an
// archive from before the tiers has one line). What the model typed is
// kept before what a spec named.
func chunkInputs(parts []*part) string {
	var ids []tieredIdent
	for _, p := range parts {
		for _, t := range p.inputs {
			if i := slices.IndexFunc(ids, func(x tieredIdent) bool { return x.id == t.id }); i >= 0 {
				t.tier = min(t.tier, ids[i].tier)
				ids = slices.Delete(ids, i, i+1)
			}
			ids = append(ids, t)
		}
	}
	// A spec's paths first, so that the cap below cuts them first; the
	// rest keep their order.
	typed := slices.DeleteFunc(slices.Clone(ids), func(t tieredIdent) bool { return t.tier == tierSpec })
	ids = append(slices.DeleteFunc(ids, func(t tieredIdent) bool { return t.tier != tierSpec }), typed...)
	n := 0
	start := len(ids)
	for start > 0 && n+len(ids[start-1].id)+1 <= maxInputsText {
		start--
		n += len(ids[start].id) + 1
	}
	if start == len(ids) {
		return ""
	}
	var lines [numTiers][]string
	for _, t := range ids[start:] {
		lines[t.tier] = append(lines[t.tier], t.id)
	}
	last := numTiers - 1
	for last > 0 && len(lines[last]) == 0 {
		last--
	}
	var b strings.Builder
	for tier := 0; tier <= last; tier++ {
		if tier > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(lines[tier], " "))
	}
	return b.String()
}
