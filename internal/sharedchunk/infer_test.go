package sharedchunk

import (
	"reflect"
	"testing"
)

// chunks makes home chunks with seqs from..to, ids 100+seq, two a turn,
// ten lines each.
func chunks(from, to int) []Chunk {
	var out []Chunk
	for s := from; s <= to; s++ {
		out = append(out, Chunk{ID: int64(100 + s), Place: Place{Seq: s, Turn: s / 2, FirstLine: 10*s + 1, LastLine: 10*s + 9}})
	}
	return out
}

// moved is home chunk seq's place moved by seq, turn and line offsets.
func moved(seq, ds, dt, dl int) Place {
	return Place{Seq: seq + ds, Turn: seq/2 + dt, FirstLine: 10*seq + 1 + dl, LastLine: 10*seq + 9 + dl}
}

func seqs(ss ...int) map[int]bool {
	m := map[int]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func TestInfer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known map[int64]Place
		taken map[int]bool
		want  map[int64]Place
	}{
		{
			name:  "between and before ties of one offset, not after the last",
			known: map[int64]Place{101: moved(1, 0, 0, 0), 105: moved(5, 0, 0, 0), 108: moved(8, 0, 0, 0)},
			taken: seqs(1, 5, 8, 10, 11),
			want: map[int64]Place{100: moved(0, 0, 0, 0), 102: moved(2, 0, 0, 0), 103: moved(3, 0, 0, 0),
				104: moved(4, 0, 0, 0), 106: moved(6, 0, 0, 0), 107: moved(7, 0, 0, 0)},
		},
		{
			name:  "moved by the tie before, turn and lines too",
			known: map[int64]Place{102: moved(2, 3, 1, 40), 104: moved(4, 3, 1, 40)},
			taken: seqs(0, 1, 2, 5, 7),
			want:  map[int64]Place{100: moved(0, 3, 1, 40), 101: moved(1, 3, 1, 40), 103: moved(3, 3, 1, 40)},
		},
		{
			name:  "ties that disagree leave the chunks between them",
			known: map[int64]Place{102: moved(2, 0, 0, 0), 106: moved(6, 1, 0, 0)},
			taken: seqs(2, 7),
			want:  map[int64]Place{100: moved(0, 0, 0, 0), 101: moved(1, 0, 0, 0)},
		},
		{
			name:  "a place the session has is not taken again",
			known: map[int64]Place{101: moved(1, 0, 0, 0), 104: moved(4, 0, 0, 0)},
			taken: seqs(1, 3, 4),
			want:  map[int64]Place{100: moved(0, 0, 0, 0), 102: moved(2, 0, 0, 0)},
		},
		{
			name:  "no place before the first sequence number",
			known: map[int64]Place{103: moved(3, -2, 0, 0)},
			taken: seqs(1),
			want:  map[int64]Place{102: moved(2, -2, 0, 0)},
		},
		{
			name:  "nothing tied, nothing inferred",
			known: map[int64]Place{},
			taken: seqs(0, 1, 2),
			want:  nil,
		},
	} {
		got := Infer(chunks(0, 9), tc.known, tc.taken)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}
