package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storeopen"
)

// DefaultHookTimeout is the hooks' deadline in benchmarks that score what
// they inject: long enough that a loaded machine does not change it.
const DefaultHookTimeout = time.Minute

// SurvivalOptions configure Survival.
type SurvivalOptions struct {
	Items       string // benchmark items (JSONL)
	Transcripts string // directory of the sessions' transcripts, <session>.jsonl
	Budget      int    // characters of restore, and of recall text
	K           int    // recall: top-k hits
	Timeout     time.Duration
	// Shares, when not zero, replaces the restore's budget shares.
	Shares retrieve.RestoreShares
}

// SurvivalResult is what Survival measured.
type SurvivalResult struct {
	Budget, K int
	// Sessions holds each session's restore after its last compaction,
	// cut to the budget, as it was scored.
	Sessions []SurvivalSession
	Items    []ItemOutcome
	// Scores are per kind, then "all".
	Scores []SurvivalScore
	// PerSession scores each session's items, in the order of Sessions:
	// a mean over items hides a session the restore serves badly.
	PerSession []SessionScore
}

// SessionScore counts the hits of one session's items.
type SessionScore struct {
	Session string `json:"session"`
	Items   int    `json:"items"`
	Restore int    `json:"restore_hits"`
	Recall  int    `json:"recall_hits"`
}

// sessionScores counts each session's hits, sessions in the order their
// items first come.
func sessionScores(items []ItemOutcome) []SessionScore {
	var out []SessionScore
	at := map[string]int{}
	for _, o := range items {
		i, ok := at[o.Session]
		if !ok {
			i = len(out)
			at[o.Session] = i
			out = append(out, SessionScore{Session: o.Session})
		}
		s := &out[i]
		s.Items++
		if o.Restore {
			s.Restore++
		}
		if o.Recall {
			s.Recall++
		}
	}
	return out
}

// meanWorst is the mean over sessions of the percentage of items hit,
// and the lowest with its session.
func meanWorst(ss []SessionScore, hits func(SessionScore) int) (mean, worst float64, which string) {
	worst = math.Inf(1)
	for _, s := range ss {
		p := pct(hits(s), s.Items)
		mean += p / float64(len(ss))
		if p < worst {
			worst, which = p, s.Session
		}
	}
	return mean, worst, which
}

// SurvivalSession is one session of the benchmark as the hooks saw it.
type SurvivalSession struct {
	ID           string
	Compaction   Point
	Instructions string // what PreCompact printed for the summariser
	Restore      string
}

// ItemOutcome says whether the restore and the recall search held an
// item's answer.
type ItemOutcome struct {
	ID, Session, Kind, Answer string
	Restore, Recall           bool
}

// SurvivalScore counts the hits of one kind of item.
type SurvivalScore struct {
	Kind    string `json:"kind"`
	Items   int    `json:"items"`
	Restore int    `json:"restore_hits"`
	Recall  int    `json:"recall_hits"`
}

// Survival scores the compaction-survival benchmark through the installed
// hook path. Each session is replayed (Replay) through every compaction
// in its transcript; the restore is what SessionStart(compact) injects
// after the last one, which the benchmark's facts are about, without
// seeing the questions. Recall searches the session's archive with each
// question (top K, the budget split by rank) through retrieve.Search, as
// `carryover search --session` and the MCP search tool do.
func Survival(ctx context.Context, opt SurvivalOptions) (*SurvivalResult, error) {
	if opt.Budget <= 0 || opt.K <= 0 {
		return nil, fmt.Errorf("bench survival: budget and k must be positive")
	}
	items, err := ReadItems(opt.Items)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "carryover-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	res := &SurvivalResult{Budget: opt.Budget, K: opt.K}
	scores := map[string]*SurvivalScore{}
	score := func(kind string) *SurvivalScore {
		if scores[kind] == nil {
			scores[kind] = &SurvivalScore{Kind: kind}
		}
		return scores[kind]
	}
	order, groups := bySession(items)
	for _, sid := range order {
		sess, err := survivalRestore(ctx, opt, tmp, sid)
		if err != nil {
			return nil, err
		}
		res.Sessions = append(res.Sessions, sess)
		recalls, err := survivalRecall(ctx, filepath.Join(tmp, sid+".db"), sid, groups[sid], opt)
		if err != nil {
			return nil, err
		}
		for i, it := range groups[sid] {
			o := ItemOutcome{ID: it.ID, Session: sid, Kind: it.Kind, Restore: Hit(sess.Restore, it.Answers), Recall: Hit(recalls[i], it.Answers)}
			if len(it.Answers) > 0 {
				o.Answer = it.Answers[0]
			}
			res.Items = append(res.Items, o)
			for _, s := range []*SurvivalScore{score(it.Kind), score("all")} {
				s.Items++
				if o.Restore {
					s.Restore++
				}
				if o.Recall {
					s.Recall++
				}
			}
		}
	}
	kinds := make([]string, 0, len(scores))
	for k := range scores {
		if k != "all" {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	for _, k := range append(kinds, "all") {
		if scores[k] != nil {
			res.Scores = append(res.Scores, *scores[k])
		}
	}
	res.PerSession = sessionScores(res.Items)
	return res, nil
}

// survivalRestore replays a session's compactions into <tmp>/<sid>.db.
func survivalRestore(ctx context.Context, opt SurvivalOptions, tmp, sid string) (SurvivalSession, error) {
	sess := SurvivalSession{ID: sid}
	lines, err := ReadLines(filepath.Join(opt.Transcripts, sid+".jsonl"))
	if err != nil {
		return sess, fmt.Errorf("bench survival: %w", err)
	}
	points := Compactions(lines)
	if len(points) == 0 {
		return sess, fmt.Errorf("bench survival: session %s has no compaction", sid)
	}
	cfg := hookConfig(filepath.Join(tmp, sid+".db"), opt.Budget, opt.Timeout)
	cfg.RestoreShares = opt.Shares
	r, err := NewReplay(cfg, tmp, sid, lines)
	if err != nil {
		return sess, err
	}
	for _, p := range points {
		c, err := r.Compact(ctx, p)
		if err != nil {
			return sess, fmt.Errorf("bench survival: %w", err)
		}
		sess.Compaction, sess.Instructions, sess.Restore = p, c.Instructions, cut(c.Restore, opt.Budget)
	}
	return sess, nil
}

// survivalRecall searches the session's archive with each item's question
// and returns the text of the top K results, cut to the budget.
func survivalRecall(ctx context.Context, db, sid string, items []Item, opt SurvivalOptions) ([]string, error) {
	st, err := storeopen.Local(ctx, db, storeopen.LocalOptions{CachePages: hook.ReadCachePages})
	if err != nil {
		return nil, fmt.Errorf("bench survival: %w", err)
	}
	defer st.Close()
	out := make([]string, len(items))
	for i, it := range items {
		rs, err := retrieve.Search(ctx, st, retrieve.SearchRequest{
			Query:  carryover.Query{Text: it.Question, SessionID: sid, Limit: opt.K},
			Budget: opt.Budget,
		})
		if err != nil {
			return nil, fmt.Errorf("bench survival: %w", err)
		}
		var b strings.Builder
		for _, r := range rs.Results {
			b.WriteString(r.Text)
			b.WriteByte('\n')
		}
		out[i] = cut(b.String(), opt.Budget)
	}
	return out, nil
}

// hookConfig is the hooks' configuration in a benchmark: the installed
// defaults but the store, the restore budget and the deadline.
func hookConfig(db string, budget int, timeout time.Duration) hook.Config {
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	return hook.Config{
		DB: db, Budget: budget, RecallBudget: retrieve.DefaultRecallBudget, Recall: true,
		Timeout: timeout, SessionEndTimeout: timeout,
	}
}

// Print writes the table of scores.
func (r *SurvivalResult) Print(w io.Writer) error {
	n := 0
	if len(r.Scores) > 0 {
		n = r.Scores[len(r.Scores)-1].Items
	}
	fmt.Fprintf(w, "compaction survival: %d items, restore budget %d chars (the hooks' restore after the compaction); recall top-%d, %d chars\n\n", n, r.Budget, r.K, r.Budget)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\titems\trestore\t\trecall\t\t")
	for _, s := range r.Scores {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%d\t%.0f%%\t\n", s.Kind, s.Items, s.Restore, pct(s.Restore, s.Items), s.Recall, pct(s.Recall, s.Items))
	}
	if len(r.PerSession) > 1 {
		fmt.Fprintln(tw, "session\titems\trestore\t\trecall\t\t")
		for _, s := range r.PerSession {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%d\t%.0f%%\t\n", carryover.ShortID(s.Session), s.Items, s.Restore, pct(s.Restore, s.Items), s.Recall, pct(s.Recall, s.Items))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.PerSession) > 1 {
		rm, rw, rs := meanWorst(r.PerSession, func(s SessionScore) int { return s.Restore })
		cm, cw, cs := meanWorst(r.PerSession, func(s SessionScore) int { return s.Recall })
		_, err := fmt.Fprintf(w, "\nper session: restore mean %.0f %%, worst %.0f %% (%s); recall mean %.0f %%, worst %.0f %% (%s)\n",
			rm, rw, carryover.ShortID(rs), cm, cw, carryover.ShortID(cs))
		return err
	}
	return nil
}

// PrintItems writes each item's outcome, a line each.
func (r *SurvivalResult) PrintItems(w io.Writer) {
	for _, o := range r.Items {
		fmt.Fprintf(w, "%s %-8s restore=%-5v recall=%-5v %s\n", o.ID, o.Kind, o.Restore, o.Recall, o.Answer)
	}
}
