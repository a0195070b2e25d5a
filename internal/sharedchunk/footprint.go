package sharedchunk

import (
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
)

// Footprints sums the bytes of rows by the set of sessions that hold
// them, for a store's carryover.Footprinter.
type Footprints struct {
	by   map[string]int
	list []carryover.Footprint
}

// Add counts bytes held by the sessions (repeats are ignored).
func (f *Footprints) Add(bytes int64, sessions ...string) {
	if bytes <= 0 || len(sessions) == 0 {
		return
	}
	if len(sessions) > 1 {
		sessions = slices.Compact(slices.Sorted(slices.Values(sessions)))
	}
	key := strings.Join(sessions, "\n")
	i, ok := f.by[key]
	if !ok {
		if f.by == nil {
			f.by = map[string]int{}
		}
		i = len(f.list)
		f.by[key] = i
		f.list = append(f.list, carryover.Footprint{Sessions: slices.Clone(sessions)})
	}
	f.list[i].Bytes += bytes
}

// List returns the sums, in the order their sets were first added.
func (f *Footprints) List() []carryover.Footprint { return f.list }
