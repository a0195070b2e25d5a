package rank

import "github.com/carryover-dev/carryover/embedding"

// turnK1 is k1 of the turn documents' BM25.
const turnK1 = 1.2

// TurnScores scores each turn of one session as one document, for
// Candidate.TurnDoc: a turn that matches more of the query's words, in more
// of its parts, is about the query as a whole, and its chunks are context
// for each other. The score is BM25 over turns without length
// normalisation (which changed nothing on LoCoMo): a term's frequency in a
// turn is the number of the turn's chunks that match it, its idf
// (embedding.IDF) counts turns. tfs holds, for each query term, the number
// of matching chunks by turn; turns is how many turns the session has (at
// least the turns tfs names). It returns each turn's score divided by the
// best one, or nil when no turn scores.
func TurnScores(turns int, tfs []map[int]int) map[int]float64 {
	seen := map[int]bool{}
	for _, tf := range tfs {
		for turn := range tf {
			seen[turn] = true
		}
	}
	n := max(turns, len(seen), 1)
	score := map[int]float64{}
	for _, tf := range tfs {
		idf := embedding.IDF(n, len(tf))
		for turn, f := range tf {
			x := float64(f)
			score[turn] += idf * x * (turnK1 + 1) / (x + turnK1)
		}
	}
	best := 0.0
	for _, v := range score {
		best = max(best, v)
	}
	if best <= 0 {
		return nil
	}
	for turn := range score {
		score[turn] /= best
	}
	return score
}
