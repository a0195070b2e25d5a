package carryover

import "context"

// PassageHit is a passage (package passage) found by a search: a window
// of the text of one transcript line, which the raw archive holds.
type PassageHit struct {
	SessionID string
	Project   string
	Line      int // the transcript line
	Part      int // the passage's index among the line's passages
	// BM25 is the full-text score, negated (higher is better), on the
	// passages' own scale.
	BM25 float64
}

// MaxPassageCandidates bounds the passages one search ranks: a query
// whose rarest term is in more finds no passage (it names nothing
// specific enough to point at a line, and ranking that many would cost a
// search most of its time on a large archive).
const MaxPassageCandidates = 500

// PassageSearcher is a store that indexes passages of the raw lines it
// keeps (an optional capability: search, recall and the tool hooks find
// with it what a chunk's truncated text lost).
type PassageSearcher interface {
	// SearchPassages ranks passages by full-text relevance, with Search's
	// query rules, keeping the rarest terms while they match at most
	// MaxPassageCandidates passages together; nothing when the rarest
	// alone matches more. Query.SessionID, Project and BeforeWindow (the
	// compactions before the passage's line) filter; File and Since are
	// ignored.
	SearchPassages(ctx context.Context, q Query) ([]PassageHit, error)
}

// PassageIndexer is a store that indexes passages of raw lines a write
// left to later (Batch.DeferPassages), or that were archived before it
// indexed passages.
type PassageIndexer interface {
	// IndexPassages indexes the passages of up to maxLines of the
	// session's raw lines not indexed yet, from its first, and reports
	// whether none is left.
	IndexPassages(ctx context.Context, sessionID string, maxLines int) (done bool, err error)
}
