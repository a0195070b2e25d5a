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

// inputIdents returns the specific identifiers of a tool call's input,
// in order, each once: what the model typed, which after a compaction it
// will need again (see package ident).
func inputIdents(raw json.RawMessage) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ident.InputStrings(raw) {
		for _, id := range ident.Rooted(s) {
			if !seen[id] && ident.Specific(id) {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// chunkInputs joins the identifiers typed in a chunk's calls, in the order
// of their last use, within maxInputsText bytes (the last ones kept).
func chunkInputs(parts []*part) string {
	var ids []string
	for _, p := range parts {
		for _, id := range p.inputs {
			if i := slices.Index(ids, id); i >= 0 {
				ids = slices.Delete(ids, i, i+1)
			}
			ids = append(ids, id)
		}
	}
	n := 0
	start := len(ids)
	for start > 0 && n+len(ids[start-1])+1 <= maxInputsText {
		start--
		n += len(ids[start]) + 1
	}
	return strings.Join(ids[start:], " ")
}
