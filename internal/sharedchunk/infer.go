// Package sharedchunk infers, for an archive written before the stores
// recorded shared chunks, which chunks of one session another session
// holds too, from the few that the other session's items reveal.
//
// A session resumed in a new transcript repeats the old session's lines,
// so its chunker makes the old session's chunks again, in the same order,
// each at a sequence number of its own; they were not stored (a chunk is
// stored once per project and hash), so those numbers are missing among
// its stored chunks. An item of the resumed session that points at one of
// the old session's chunks ties the two numberings together at that
// chunk. A chunk of the old session whose place is not tied that way is
// placed by the ties around it, only where they agree and the place is
// free in the resumed session: between two ties of one offset, or before
// the first one. Past the last tie nothing says that the resumed session
// repeated more of the old one's lines (a fork stops there), and a chunk
// placed wrongly would outlive a forget of the session that has it.
package sharedchunk

import "sort"

// Place is where a session holds a chunk.
type Place struct {
	Seq, Turn, Window   int
	FirstLine, LastLine int
}

// Chunk is a chunk of the session that stored it, at its place there.
type Chunk struct {
	ID int64
	Place
}

// Infer returns the places at which the resuming session holds chunks of
// home (the old session's chunks) that known does not tie yet. known maps
// chunk ids of home to the resuming session's places for them; taken
// holds the sequence numbers the resuming session has, its own chunks'
// and those of its known shares. Each inferred chunk's turn, window and
// lines are moved by as much as those of the tie before it (after it,
// before the first).
func Infer(home []Chunk, known map[int64]Place, taken map[int]bool) map[int64]Place {
	home = append([]Chunk(nil), home...)
	sort.Slice(home, func(i, j int) bool { return home[i].Seq < home[j].Seq })
	// The indexes in home of the tied chunks, in order.
	var tieIdx []int
	for i, c := range home {
		if _, ok := known[c.ID]; ok {
			tieIdx = append(tieIdx, i)
		}
	}
	if len(tieIdx) == 0 {
		return nil
	}
	used := make(map[int]bool, len(taken))
	for s := range taken {
		used[s] = true
	}
	out := map[int64]Place{}
	t := 0 // tieIdx[t] is the first tie after i
	for i, c := range home {
		for t < len(tieIdx) && tieIdx[t] < i {
			t++
		}
		if t < len(tieIdx) && tieIdx[t] == i {
			continue // tied
		}
		if t == len(tieIdx) {
			break // past the last tie
		}
		next := home[tieIdx[t]]
		ref := next
		if t > 0 {
			prev := home[tieIdx[t-1]]
			if offset(prev, known) != offset(next, known) {
				continue // the two numberings disagree here
			}
			ref = prev
		}
		at := known[ref.ID]
		p := Place{
			Seq:       c.Seq + at.Seq - ref.Seq,
			Turn:      c.Turn + at.Turn - ref.Turn,
			Window:    c.Window + at.Window - ref.Window,
			FirstLine: c.FirstLine + at.FirstLine - ref.FirstLine,
			LastLine:  c.LastLine + at.FirstLine - ref.FirstLine,
		}
		if p.Seq < 0 || p.Turn < 0 || p.Window < 0 || used[p.Seq] {
			continue
		}
		used[p.Seq] = true
		out[c.ID] = p
	}
	return out
}

// offset is how far the resuming session's numbering of c is from home's.
func offset(c Chunk, known map[int64]Place) int {
	return known[c.ID].Seq - c.Seq
}
