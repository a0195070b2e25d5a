package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/rank"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storeopen"
)

// The LoCoMo benchmark (Maharana et al., ACL 2024) measures retrieval over
// long conversations: each turn is one chunk in a real store, each question
// of categories 1–4 is a query (5 is adversarial: unanswerable), and its evidence turns are the
// ground truth. In locomo10.json the categories are numbered 1 multi-hop,
// 2 temporal, 3 open-domain, 4 single-hop (the paper lists them in another
// order; the counts, 282/321/96/841, identify them).

// locomoRankers are the rankers measured, in output order.
var locomoRankers = []string{"bm25", "seedhash", "hashed", "hashed_ctx", "fused"}

// The rankers:
//   - bm25: the store's full-text ranking alone (the BM25 part of each
//     hit of sqlite.Store.Search, re-sorted).
//   - seedhash: cosine over embedding.SeedHash vectors (the seed's baseline).
//   - hashed: cosine over embedding.Hashed vectors of each turn, the question
//     embedded with the conversation's IDF (Hashed.EmbedQuery with embedding.DF).
//   - hashed_ctx: the same, each turn's vector plus neighbourW times its
//     neighbours' (withNeighbours).
//   - fused: the product's search, retrieve.Search as `carryover search
//     --session` and the MCP search tool call it: the store's BM25
//     candidates reranked by a blend with the cosine of their stored
//     vectors, their parent turn's score and the turn's score as one
//     document, taken with fewer repeats of one turn (see
//     sqlite/hybrid.go), duplicates dropped.
//
// hashed and hashed_ctx score every turn of the conversation, which the
// product does not (a hook cannot read every vector); they show what the
// embedder alone can do.
const (
	neighbourW  = 0.5
	locomoPool  = 100 // hits each dense ranker returns
	locomoTop   = 10  // hits of the fused ranker: the largest k scored
	locomoStore = "locomo"
)

type locomoConv struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"` // the caption of a shared image
}

type locomoQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

type locomoAudit struct {
	QuestionID      string   `json:"question_id"`
	CorrectEvidence []string `json:"correct_evidence"`
}

// locomoScores are recall sums over questions (divide by N for the means).
type locomoScores struct {
	N                                int
	TurnR5, TurnR10, SessR5, SessR10 float64
}

func (s *locomoScores) add(turn5, turn10, sess5, sess10 float64) {
	s.N++
	s.TurnR5 += turn5
	s.TurnR10 += turn10
	s.SessR5 += sess5
	s.SessR10 += sess10
}

func (s locomoScores) mean() locomoMeans {
	if s.N == 0 {
		return locomoMeans{}
	}
	n := float64(s.N)
	r := func(x float64) float64 { return math.Round(x/n*1e4) / 1e4 }
	return locomoMeans{TurnR5: r(s.TurnR5), TurnR10: r(s.TurnR10), SessionR5: r(s.SessR5), SessionR10: r(s.SessR10)}
}

// locomoMeans is one ranker's figures as --json prints them, rounded to
// four decimals.
type locomoMeans struct {
	TurnR5     float64 `json:"turn_r5"`
	TurnR10    float64 `json:"turn_r10"`
	SessionR5  float64 `json:"session_r5"`
	SessionR10 float64 `json:"session_r10"`
}

// LocomoResult holds the scores by evidence set ("original", "corrected"),
// ranker and category (0 for all of 1–4).
type LocomoResult struct {
	Conversations, Turns int
	Replaced             int // questions whose evidence the audit corrected
	Scores               map[string]map[string]map[int]*locomoScores
	Elapsed              time.Duration
}

func (r *LocomoResult) score(set, ranker string, cat int) *locomoScores {
	if r.Scores[set] == nil {
		r.Scores[set] = map[string]map[int]*locomoScores{}
	}
	if r.Scores[set][ranker] == nil {
		r.Scores[set][ranker] = map[int]*locomoScores{}
	}
	s := r.Scores[set][ranker][cat]
	if s == nil {
		s = &locomoScores{}
		r.Scores[set][ranker][cat] = s
	}
	return s
}

// LocomoOptions configure Locomo.
type LocomoOptions struct {
	Data  string // LoCoMo conversations and questions (locomo10.json)
	Audit string // audit of the ground truth (errors.json of locomo-audit); "" for none
}

// Locomo scores every ranker on LoCoMo's questions of categories 1–4,
// each conversation indexed into a real store.
func Locomo(ctx context.Context, opt LocomoOptions) (*LocomoResult, error) {
	convs, err := readLocomo(opt.Data)
	if err != nil {
		return nil, err
	}
	audit := map[string][]string{}
	if opt.Audit != "" {
		if audit, err = readLocomoAudit(opt.Audit); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "carryover-locomo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	return runLocomo(ctx, filepath.Join(tmp, "locomo.db"), convs, audit)
}

// runLocomo indexes every conversation into a new store at dbPath and
// scores every ranker on every question of categories 1–4. audit maps
// question ids ("locomo_<conversation>_qa<question>", both 0-based) to
// corrected evidence.
func runLocomo(ctx context.Context, dbPath string, convs []locomoConv, audit map[string][]string) (*LocomoResult, error) {
	start := time.Now()
	st, err := storeopen.Local(ctx, dbPath, storeopen.LocalOptions{})
	if err != nil {
		return nil, fmt.Errorf("bench locomo: %w", err)
	}
	defer st.Close()
	res := &LocomoResult{Conversations: len(convs), Scores: map[string]map[string]map[int]*locomoScores{}}
	hashed, seed := embedding.DefaultHashed(), embedding.SeedHash{}
	for ci, c := range convs {
		turns, err := c.turns()
		if err != nil {
			return nil, err
		}
		res.Turns += len(turns)
		sid := "locomo-" + c.SampleID
		if err := indexLocomo(ctx, st, sid, turns); err != nil {
			return nil, fmt.Errorf("bench locomo %s: %w", c.SampleID, err)
		}
		texts := make([]string, len(turns))
		byID := make(map[string]int, len(turns))
		for i, t := range turns {
			texts[i] = t.chunkText()
			byID[t.DiaID] = i
		}
		hashedVecs, seedVecs := hashed.Embed(texts), seed.Embed(texts)
		ctxVecs := withNeighbours(hashedVecs, turns, neighbourW)
		var df embedding.DF
		for _, t := range texts {
			df.Add(t)
		}
		for qi, qa := range c.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			sets := map[string][]int{"original": evidenceTurns(qa.Evidence, byID)}
			sets["corrected"] = sets["original"]
			if ev, ok := audit[fmt.Sprintf("locomo_%d_qa%d", ci, qi)]; ok {
				sets["corrected"] = evidenceTurns(ev, byID)
				res.Replaced++
			}
			if len(sets["original"]) == 0 && len(sets["corrected"]) == 0 {
				continue
			}
			// The store's search: its BM25 parts, re-sorted, are the bm25
			// ranker (it reranks its whole candidate pool, so asking for
			// the pool returns every BM25 candidate).
			hits, err := st.Search(ctx, carryover.Query{Text: qa.Question, SessionID: sid, Limit: rank.Pool})
			if err != nil {
				return nil, fmt.Errorf("bench locomo %s: %w", c.SampleID, err)
			}
			// The fused ranker is the search `carryover search` and the
			// MCP search tool run, its top 10 in full.
			rs, err := retrieve.Search(ctx, st, retrieve.SearchRequest{
				Query: carryover.Query{Text: qa.Question, SessionID: sid, Limit: locomoTop}, Budget: 1 << 20,
			})
			if err != nil {
				return nil, fmt.Errorf("bench locomo %s: %w", c.SampleID, err)
			}
			fused := make([]int, 0, len(rs.Results))
			for _, r := range rs.Results {
				fused = append(fused, r.Lines[0]-1)
			}
			slices.SortStableFunc(hits, func(a, b carryover.Hit) int {
				if c := cmp.Compare(b.BM25, a.BM25); c != 0 {
					return c
				}
				return cmp.Compare(a.Chunk.ID, b.Chunk.ID)
			})
			bm := make([]int, 0, len(hits))
			for _, h := range hits {
				bm = append(bm, h.Chunk.FirstLine-1)
			}
			qv := hashed.EmbedQuery(qa.Question, df.IDF)
			ranked := map[string][]int{
				"bm25":       bm,
				"seedhash":   denseRank(seed.Embed([]string{qa.Question})[0], seedVecs, locomoPool),
				"hashed":     denseRank(qv, hashedVecs, locomoPool),
				"hashed_ctx": denseRank(qv, ctxVecs, locomoPool),
				"fused":      fused,
			}
			for set, ev := range sets {
				if len(ev) == 0 {
					continue // the audit found no evidence for it
				}
				for _, name := range locomoRankers {
					t5, s5 := recallAt(ranked[name], ev, turns, 5)
					t10, s10 := recallAt(ranked[name], ev, turns, 10)
					res.score(set, name, qa.Category).add(t5, t10, s5, s10)
					res.score(set, name, 0).add(t5, t10, s5, s10)
				}
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// indexLocomo stores a conversation's turns as chunks of one session,
// through the store's real write path: Seq and FirstLine carry the turn's
// index (FirstLine from 1, so a hit maps back to its dia_id), Turn its
// LoCoMo session number.
func indexLocomo(ctx context.Context, st carryover.Store, sid string, turns []locomoTurn) error {
	chunks := make([]carryover.Chunk, len(turns))
	for i, t := range turns {
		chunks[i] = carryover.Chunk{
			SessionID: sid,
			Project:   locomoStore,
			Seq:       i,
			Turn:      t.session(),
			FirstLine: i + 1,
			LastLine:  i + 1,
			Text:      t.chunkText(),
			Hash:      sid + "/" + t.DiaID,
		}
	}
	return st.Apply(ctx, carryover.Batch{
		Session: carryover.Session{ID: sid, Project: locomoStore, Title: sid},
		Chunks:  chunks,
		State:   carryover.IngestState{SessionID: sid},
	})
}

// chunkText is what a turn is indexed as: "speaker: text", with the
// caption of an image the speaker shared (the dataset's stand-in for the
// picture).
func (t locomoTurn) chunkText() string {
	s := t.Speaker + ": " + t.Text
	if t.BlipCaption != "" {
		s += " [shares a photo: " + t.BlipCaption + "]"
	}
	return s
}

// session returns the LoCoMo session number of the turn ("D3:5" → 3).
func (t locomoTurn) session() int {
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(t.DiaID, ":", 2)[0], "D"))
	return n
}

// turns returns the conversation's turns, session by session.
func (c locomoConv) turns() ([]locomoTurn, error) {
	var nums []int
	for k := range c.Conversation {
		if n, ok := strings.CutPrefix(k, "session_"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				nums = append(nums, i)
			}
		}
	}
	sort.Ints(nums)
	var turns []locomoTurn
	for _, n := range nums {
		var ts []locomoTurn
		if err := json.Unmarshal(c.Conversation["session_"+strconv.Itoa(n)], &ts); err != nil {
			return nil, fmt.Errorf("locomo %s session %d: %w", c.SampleID, n, err)
		}
		turns = append(turns, ts...)
	}
	return turns, nil
}

// diaIDPattern finds dia_ids in evidence strings, some of which hold
// several ("D8:6; D9:17") or a stray colon ("D:11:26").
var diaIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`D:?(\d+):(\d+)`) })

// evidenceTurns maps evidence strings to turn indexes, each once, dropping
// ids the conversation does not have.
func evidenceTurns(evidence []string, byID map[string]int) []int {
	var out []int
	for _, e := range evidence {
		for _, m := range diaIDPattern().FindAllStringSubmatch(e, -1) {
			if i, ok := byID["D"+m[1]+":"+m[2]]; ok && !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// recallAt returns the turn-level and session-level recall of the first k
// of ranked: the fraction of evidence turns among them, and the fraction of
// the evidence's sessions that at least one of them belongs to.
func recallAt(ranked, evidence []int, turns []locomoTurn, k int) (turn, session float64) {
	top := ranked[:min(k, len(ranked))]
	found := 0
	for _, e := range evidence {
		if slices.Contains(top, e) {
			found++
		}
	}
	want := map[int]bool{}
	for _, e := range evidence {
		want[turns[e].session()] = true
	}
	covered := map[int]bool{}
	for _, i := range top {
		if s := turns[i].session(); want[s] {
			covered[s] = true
		}
	}
	return float64(found) / float64(len(evidence)), float64(len(covered)) / float64(len(want))
}

// denseRank returns the indexes of the k vectors most similar to q, best
// first (ties by index).
func denseRank(q []float32, vecs [][]float32, k int) []int {
	scores := make([]float32, len(vecs))
	idx := make([]int, len(vecs))
	for i, v := range vecs {
		scores[i] = embedding.Dot(q, v)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx[:min(k, len(idx))]
}

func readLocomo(path string) ([]locomoConv, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locomo data: %w", err)
	}
	var convs []locomoConv
	if err := json.Unmarshal(data, &convs); err != nil {
		return nil, fmt.Errorf("locomo data %s: %w", path, err)
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("locomo data %s: no conversations", path)
	}
	return convs, nil
}

func readLocomoAudit(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locomo audit: %w", err)
	}
	var entries []locomoAudit
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("locomo audit %s: %w", path, err)
	}
	out := make(map[string][]string, len(entries))
	for _, e := range entries {
		out[e.QuestionID] = e.CorrectEvidence
	}
	return out, nil
}

// JSON is the --json shape: rankers' figures on the original evidence
// (categories 1–4), and the same under "corrected".
func (r *LocomoResult) JSON() map[string]any {
	set := func(name string) map[string]locomoMeans {
		out := map[string]locomoMeans{}
		for _, rk := range locomoRankers {
			if s := r.Scores[name][rk][0]; s != nil {
				out[rk] = s.mean()
			}
		}
		return out
	}
	out := map[string]any{}
	for rk, m := range set("original") {
		out[rk] = m
	}
	out["corrected"] = set("corrected")
	return out
}

// Print writes the tables.
func (r *LocomoResult) Print(w io.Writer) error {
	orig := r.Scores["original"]["bm25"][0]
	corr := r.Scores["corrected"]["bm25"][0]
	if orig == nil {
		return fmt.Errorf("bench locomo: no questions with evidence")
	}
	fmt.Fprintf(w, "LoCoMo retrieval: %d conversations, %d turns, %d questions of categories 1-4 (%d with audit-corrected evidence), %.1fs\n",
		r.Conversations, r.Turns, orig.N, r.Replaced, r.Elapsed.Seconds())
	fmt.Fprintf(w, "turn R@k: fraction of a question's evidence turns among the top k; session R@k: fraction of its evidence sessions\n")
	fmt.Fprintf(w, "with a turn in the top k; both averaged over questions. hashed: %s, query idf from the conversation;\n", embedding.DefaultHashed().Name())
	fmt.Fprintf(w, "hashed_ctx: turn vector + %g x neighbours'; fused: the product's search within the conversation (BM25 top %d reranked\n",
		neighbourW, rank.Pool)
	fmt.Fprintf(w, "with stored vectors, parent turns and each LoCoMo session scored as one document).\n")
	cats := []string{"all", "1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop"}
	for _, set := range []string{"original", "corrected"} {
		n := orig.N
		if set == "corrected" && corr != nil {
			n = corr.N
		}
		fmt.Fprintf(w, "\n%s evidence (%d questions)\n", set, n)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ranker\tcategory\tquestions\tturn R@5\tturn R@10\tsession R@5\tsession R@10\t")
		for _, rk := range locomoRankers {
			for cat, label := range cats {
				s := r.Scores[set][rk][cat]
				if s == nil {
					continue
				}
				m := s.mean()
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", rk, label, s.N, m.TurnR5, m.TurnR10, m.SessionR5, m.SessionR10)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// withNeighbours returns each turn's vector plus w times the vectors of the
// turns just before and after it in the same session, renormalised: a turn
// is often a reply whose subject was named in the turn before (a retrieval
// unit scored with its surrounding context).
func withNeighbours(vecs [][]float32, turns []locomoTurn, w float32) [][]float32 {
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		u := slices.Clone(v)
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(vecs) || turns[j].session() != turns[i].session() {
				continue
			}
			for d := range u {
				u[d] += w * vecs[j][d]
			}
		}
		var n float64
		for _, x := range u {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			inv := float32(1 / math.Sqrt(n))
			for d := range u {
				u[d] *= inv
			}
		}
		out[i] = u
	}
	return out
}
