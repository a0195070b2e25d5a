package sqlite

import (
	"context"
	"encoding/json"
	"math"
	"slices"
)

// A search's plan asks each query word for its limit+1st match in rowid
// order, its reach (see planUpTo). A common word has one, and the walk to
// it is most of what a fresh process spends on the plan: some 0.3 ms a
// word at 100k chunks, every search, for the same few hundred words, in
// the chunk index and again in the passage index. The reach of a word over
// a whole index does not move while rows are only added, since they are
// added above the highest id; it is kept in term_reach, which triggers
// empty of an index's reaches whenever one of its rows is deleted or its
// indexed text changes (schema version 13).
//
// A search that only reads does not write the store: it journals the
// reaches it found (a line of the runs journal, with the generation of
// the index they hold for), and the next write folds them into
// term_reach unless the index changed since (reach_gen moved). Until then
// searches read them from the journal. Plans, and so rankings, are those
// the walks give.

// termReach is a word's reach over the whole index idx, found while the
// index's reach_gen was gen, for a plan of limit cap.
type termReach struct {
	idx   string
	gen   int64
	cap   int
	term  string
	reach int64
}

// journalReaches is a line of the journal holding the reaches one search
// found; its first field, "k":"r", tells it from a run.
type journalReaches struct {
	Kind    string   `json:"k"`
	Index   string   `json:"i"`
	Gen     int64    `json:"g"`
	Cap     int      `json:"c"`
	Terms   []string `json:"t"`
	Reaches []int64  `json:"r"`
}

// reachLine starts every reaches' line.
var reachLine = []byte(`{"k":"r",`)

// parseReaches parses a reaches' line; nil for one that is not.
func parseReaches(line []byte) []termReach {
	var j journalReaches
	if json.Unmarshal(line, &j) != nil || j.Kind != "r" || !reachIndex(j.Index) || len(j.Terms) != len(j.Reaches) || j.Cap <= 0 {
		return nil
	}
	out := make([]termReach, 0, len(j.Terms))
	for i, t := range j.Terms {
		if t != "" && j.Reaches[i] > 0 {
			out = append(out, termReach{idx: j.Index, gen: j.Gen, cap: j.Cap, term: t, reach: j.Reaches[i]})
		}
	}
	return out
}

// reachIndex reports whether the reaches of index fts are kept.
func reachIndex(fts string) bool { return fts == "chunks_fts" || fts == "passages_fts" }

// reachPlan reports whether a plan's reaches may be kept: over a whole
// index whose reaches are.
func reachPlan(fts string, lo, hi int64) bool {
	return reachIndex(fts) && lo == 0 && hi == math.MaxInt64
}

// knownReaches returns the reaches of terms known for plans of limit over
// index fts, and the generation of the index now; gen < 0 when none may be
// used (the store predates term_reach, or its chunk index is still being
// filled).
func (s *Store) knownReaches(ctx context.Context, fts string, terms []string, limit int) (map[string]int64, int64) {
	list, err := json.Marshal(terms)
	if err != nil {
		return nil, -1
	}
	// The generation and the stored reaches in one statement, one view of
	// the store: the triggers keep the table true to the index.
	rows, err := s.db.QueryContext(ctx, `SELECT '', value FROM meta WHERE key = 'reach_gen:' || ?1
			AND (?1 <> 'chunks_fts' OR (SELECT value FROM meta WHERE key = 'fts_backfill_below') <= 1)
		UNION ALL SELECT term, reach FROM term_reach WHERE idx = ?1 AND cap = ?2 AND term IN (SELECT value FROM json_each(?3))`,
		fts, limit, string(list))
	if err != nil {
		return nil, -1
	}
	defer rows.Close()
	gen := int64(-1)
	known := map[string]int64{}
	for rows.Next() {
		var t string
		var v int64
		if err := rows.Scan(&t, &v); err != nil {
			return nil, -1
		}
		if t == "" {
			gen = v
		} else {
			known[t] = v
		}
	}
	if rows.Err() != nil || gen < 0 {
		return nil, -1
	}
	// Those journaled since, found while the index was as it is now.
	j, err := s.readJournals(ctx, journalReachLines, "")
	if err != nil {
		return known, gen
	}
	for _, r := range j.reaches {
		if r.idx == fts && r.gen == gen && r.cap == limit && slices.Contains(terms, r.term) {
			known[r.term] = r.reach
		}
	}
	return known, gen
}

// journalReachesFound journals the reaches a plan over index fts found,
// for the index of generation gen. A store opened read-only journals
// nothing; a journal that takes no more loses them, and the next search
// walks again.
func (s *Store) journalReachesFound(fts string, gen int64, limit int, found []termCount) {
	if s.readOnly || len(found) == 0 {
		return
	}
	j := journalReaches{Kind: "r", Index: fts, Gen: gen, Cap: limit}
	for _, f := range found {
		j.Terms, j.Reaches = append(j.Terms, f.term), append(j.Reaches, f.reach)
	}
	appendLine(s.records, j)
}

// foldReaches stores the journal's reaches that hold for their index as
// it is in tx.
func foldReaches(ctx context.Context, tx execQueryer, reaches []termReach) error {
	gens := map[string]int64{}
	for _, r := range reaches {
		gen, ok := gens[r.idx]
		if !ok {
			if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'reach_gen:' || ?`, r.idx).Scan(&gen); err != nil {
				return err
			}
			gens[r.idx] = gen
		}
		if r.gen != gen {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO term_reach (idx, term, cap, reach) VALUES (?, ?, ?, ?)`,
			r.idx, r.term, r.cap, r.reach); err != nil {
			return err
		}
	}
	return nil
}

// execQueryer is a transaction, as foldReaches uses it.
type execQueryer interface {
	execer
	queryer
}
