package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/carryover-dev/carryover"
)

// What a get reads, shared by the MCP get tool and 'carryover get': chunks
// by the ids search shows, or a stretch of a session's transcript, as the
// raw archive keeps its lines when it has them, else as chunks.

// MaxChunkIDs bounds the chunks one get reads by id.
const MaxChunkIDs = 50

// ChunksByID returns the chunks with these ids and the ids no chunk has.
// At least one must exist.
func ChunksByID(ctx context.Context, st carryover.Store, ids []int64) ([]carryover.Chunk, []int64, error) {
	if len(ids) > MaxChunkIDs {
		return nil, nil, fmt.Errorf("%d chunk ids: give at most %d", len(ids), MaxChunkIDs)
	}
	for _, id := range ids {
		if id <= 0 {
			return nil, nil, fmt.Errorf("chunk id %d: chunk ids are positive (search shows them as \"chunk N\")", id)
		}
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: ids})
	if err != nil {
		return nil, nil, fmt.Errorf("chunks: %w", err)
	}
	var missing []int64
	for _, id := range ids {
		if !slices.ContainsFunc(chunks, func(c carryover.Chunk) bool { return c.ID == id }) {
			missing = append(missing, id)
		}
	}
	if len(chunks) == 0 {
		return nil, nil, fmt.Errorf("no archived chunk with id %s; chunk ids come from search results", JoinIDs(missing))
	}
	return chunks, missing, nil
}

// JoinIDs lists ids as "12, 40".
func JoinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}

// RawLines reads the session's raw lines from..to (to <= 0: to its last
// raw line), at most limit of them. end is the range's last line: to, or
// the session's last raw line. No lines means the raw archive holds none
// there (the session was archived before it kept them): read the chunks
// (RangeChunks).
func RawLines(ctx context.Context, st carryover.Store, sessionID string, from, to, limit int) (lines []carryover.RawLine, end int, err error) {
	from = max(from, 1)
	end = to
	if end <= 0 {
		if _, end, err = st.RawRange(ctx, sessionID); err != nil {
			return nil, 0, fmt.Errorf("raw lines: %w", err)
		}
	}
	if end < from {
		return nil, end, nil
	}
	lines, err = st.RawLines(ctx, sessionID, from, min(end, from+limit-1))
	if err != nil {
		return nil, 0, fmt.Errorf("raw lines: %w", err)
	}
	return lines, end, nil
}

// RangeChunks returns the session's chunks that hold lines from..to (0:
// open-ended), or an error saying that nothing is archived there.
func RangeChunks(ctx context.Context, st carryover.Store, s carryover.Session, from, to int) ([]carryover.Chunk, error) {
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1, FromLine: from, ToLine: to})
	if err != nil {
		return nil, fmt.Errorf("chunks: %w", err)
	}
	if len(chunks) == 0 {
		return nil, fmt.Errorf("nothing archived in session %s, lines %s (the session has %d turns)",
			carryover.ShortID(s.ID), FormatLines(from, to), s.Turns)
	}
	return chunks, nil
}

// FormatLines writes a line range as ParseLines reads it.
func FormatLines(from, to int) string {
	switch {
	case to <= 0:
		return fmt.Sprintf("%d-", max(from, 1))
	case from == to:
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d-%d", max(from, 1), to)
}

// ParseLines reads a line range: "A-B", "A-" (to the last line) or "A"
// (that line); "" is every line (0, 0).
func ParseLines(s string) (from, to int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	num := func(v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return 0, fmt.Errorf("want a range of line numbers such as 120-180, got %q", s)
		}
		return n, nil
	}
	if from, err = num(a); err != nil {
		return 0, 0, err
	}
	switch {
	case !isRange:
		to = from
	case strings.TrimSpace(b) != "":
		if to, err = num(b); err != nil {
			return 0, 0, err
		}
		if to < from {
			return 0, 0, fmt.Errorf("%q ends before it starts", s)
		}
	}
	return from, to, nil
}

// GetRef is one argument of a get: a chunk id, or a session (id or unique
// prefix, as FindSession takes it) and a line range.
type GetRef struct {
	ChunkID  int64
	Session  string
	From, To int // To 0: to the last line
}

// ParseGetRef reads "1234" (a chunk id) or "SESSION:A-B", "SESSION:A",
// "SESSION:A-" (a session's lines).
func ParseGetRef(arg string) (GetRef, error) {
	arg = strings.TrimSpace(arg)
	sess, lines, ok := strings.Cut(arg, ":")
	if !ok {
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || id <= 0 {
			return GetRef{}, fmt.Errorf("%q: want a chunk id (as search shows it) or SESSION:A-B", arg)
		}
		return GetRef{ChunkID: id}, nil
	}
	if sess == "" {
		return GetRef{}, fmt.Errorf("%q: give the session before the colon, as in fa812bfe:120-180", arg)
	}
	from, to, err := ParseLines(lines)
	if err != nil || from == 0 {
		return GetRef{}, fmt.Errorf("%q: after the colon %s", arg, "want lines A-B, A or A-, as in fa812bfe:120-180")
	}
	return GetRef{Session: sess, From: from, To: to}, nil
}
