package retrieve

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
)

// kindOverfetch is how many more hits a kind-filtered search asks for, as
// only some chunks hold an item of the kind.
const kindOverfetch = 8

// WithKind returns a view of st whose searches keep only chunks from which
// an item of kind was extracted. Other methods are st's.
func WithKind(st carryover.Store, kind carryover.ItemKind) carryover.Store {
	return kindStore{Store: st, kind: kind}
}

type kindStore struct {
	carryover.Store
	kind carryover.ItemKind
}

func (k kindStore) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	want := q.Limit
	if want <= 0 {
		want = DefaultSearchLimit
	}
	q.Limit = want * kindOverfetch
	hits, err := k.Store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	hits, err = FilterKind(ctx, k.Store, hits, k.kind)
	if err != nil {
		return nil, err
	}
	return hits[:min(len(hits), want)], nil
}

// FilterKind keeps the hits whose chunk holds an item of kind, in order.
func FilterKind(ctx context.Context, st carryover.Store, hits []carryover.Hit, kind carryover.ItemKind) ([]carryover.Hit, error) {
	type seqKey struct {
		session string
		seq     int
	}
	ids := map[int64]bool{}
	seqs := map[seqKey]bool{}
	done := map[string]bool{}
	for _, h := range hits {
		sid := h.Chunk.SessionID
		if done[sid] {
			continue
		}
		done[sid] = true
		items, err := st.Items(ctx, carryover.ItemFilter{SessionID: sid, Kinds: []carryover.ItemKind{kind}})
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		for _, it := range items {
			if it.ChunkID != 0 {
				ids[it.ChunkID] = true
			}
			seqs[seqKey{it.SessionID, it.ChunkSeq}] = true
		}
	}
	var out []carryover.Hit
	for _, h := range hits {
		if ids[h.Chunk.ID] || seqs[seqKey{h.Chunk.SessionID, h.Chunk.Seq}] {
			out = append(out, h)
		}
	}
	return out, nil
}

// ParseSince reads a search's lower time bound: an RFC 3339 time, a date
// (2006-01-02, UTC) or an age before now such as 7d, 24h or 90m.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	bad := fmt.Errorf("since %q: want an RFC 3339 time, a date (2006-01-02) or an age such as 7d, 24h or 90m", s)
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsNaN(days) || days > 1e5 {
			return time.Time{}, bad
		}
		d = time.Duration(days * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return time.Time{}, bad
		}
	}
	if d <= 0 {
		return time.Time{}, fmt.Errorf("since %q: the age must be positive", s)
	}
	return now.Add(-d), nil
}
