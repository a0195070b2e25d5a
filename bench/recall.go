package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storeopen"
)

// Recall measures UserPromptSubmit recall as the hook runs it
// (Replay.Prompt), on three sets of prompts:
//   - positives: the compaction-survival questions, asked right after
//     their session's compaction (the answer is in an earlier window); a
//     hit is an injected text holding an answer;
//   - negatives "first": the first prompt of each real session, as a new
//     session of its project whose archive holds only the sessions of the
//     other projects;
//   - negatives "later": every later prompt of each real session, asked
//     right after a compaction at its line (a boundary without a summary,
//     as Claude Code writes it), everything before it searchable.
//
// Any injection on a negative is a false injection. Every prompt is asked
// at each setting of the thresholds, on the store as it was before the
// prompt: a recall's injection is recorded, and a later recall of the
// window skips what it injected.

// RecallGate is one setting of recall's thresholds.
type RecallGate struct {
	MinScore    float64 `json:"min_score"`
	MinCoverage float64 `json:"min_coverage"`
}

// IsDefault reports whether g is the installed setting.
func (g RecallGate) IsDefault() bool {
	return g.MinScore == retrieve.RecallMinScore && g.MinCoverage == retrieve.RecallMinCoverage
}

// thresholds is the hook's setting for g: zero, the hook's own defaults,
// for the default, so that its row measures the installed hook.
func (g RecallGate) thresholds() hook.RecallThresholds {
	if g.IsDefault() {
		return hook.RecallThresholds{}
	}
	return hook.RecallThresholds{MinScore: g.MinScore, MinCoverage: g.MinCoverage}
}

// RecallSweep is the settings measured: the default first.
func RecallSweep() []RecallGate {
	gates := []RecallGate{{retrieve.RecallMinScore, retrieve.RecallMinCoverage}}
	for _, s := range []float64{1, 4, 8} {
		for _, c := range []float64{0.0001, 0.4, 0.5, 0.6, 0.7, 0.8} {
			g := RecallGate{s, c}
			if !g.IsDefault() {
				gates = append(gates, g)
			}
		}
	}
	return gates
}

// RecallPrompt is one prompt of the benchmark and what recall injected for
// it at each setting.
type RecallPrompt struct {
	Set     string   `json:"set"` // positive, first, later
	Session string   `json:"session"`
	Prompt  string   `json:"prompt"`
	Answers []string `json:"answers,omitempty"`
	// Chars[i] is what recall injected at gates[i]; Hit[i] whether it
	// holds an answer (positives only).
	Chars []int  `json:"chars"`
	Hit   []bool `json:"hit,omitempty"`
}

// RecallRow is one setting's counts.
type RecallRow struct {
	RecallGate
	Default        bool `json:"default,omitempty"`
	PositiveHits   int  `json:"positive_hits"`
	PositiveInject int  `json:"positive_injected"`
	Positives      int  `json:"positives"`
	FirstInject    int  `json:"first_injected"`
	First          int  `json:"first"`
	LaterInject    int  `json:"later_injected"`
	Later          int  `json:"later"`
}

// RecallOptions configure Recall.
type RecallOptions struct {
	Items string // positive questions (JSONL)
	// Transcripts holds real transcripts: spotter/ (the items' sessions)
	// and claude-code-log/<project>/.
	Transcripts string
	Budget      int // characters recall may inject
	Timeout     time.Duration
}

// RecallResult is what Recall measured.
type RecallResult struct {
	Budget  int            `json:"budget"`
	Rows    []RecallRow    `json:"sweep"`
	Prompts []RecallPrompt `json:"prompts,omitempty"`
}

// Recall runs the benchmark.
func Recall(ctx context.Context, opt RecallOptions) (*RecallResult, error) {
	items, err := ReadItems(opt.Items)
	if err != nil {
		return nil, err
	}
	// Hooks take absolute transcript paths only.
	dir, err := filepath.Abs(opt.Transcripts)
	if err != nil {
		return nil, err
	}
	sessions, err := benchSessions(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "carryover-bench-recall-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	b := &recallBench{tmp: tmp, budget: opt.Budget, timeout: opt.Timeout, gates: RecallSweep()}
	prompts, err := b.positives(ctx, items, filepath.Join(dir, "spotter"))
	if err != nil {
		return nil, err
	}
	first, err := b.firstPrompts(ctx, sessions)
	if err != nil {
		return nil, err
	}
	later, err := b.laterPrompts(ctx, sessions)
	if err != nil {
		return nil, err
	}
	prompts = append(append(prompts, first...), later...)

	res := &RecallResult{Budget: opt.Budget, Prompts: prompts}
	for i, g := range b.gates {
		r := RecallRow{RecallGate: g, Default: g.IsDefault()}
		for _, p := range prompts {
			inj := p.Chars[i] > 0
			switch p.Set {
			case "positive":
				r.Positives++
				if inj {
					r.PositiveInject++
				}
				if p.Hit[i] {
					r.PositiveHits++
				}
			case "first":
				r.First++
				if inj {
					r.FirstInject++
				}
			case "later":
				r.Later++
				if inj {
					r.LaterInject++
				}
			}
		}
		res.Rows = append(res.Rows, r)
	}
	return res, nil
}

type recallBench struct {
	tmp     string
	budget  int
	timeout time.Duration
	gates   []RecallGate
}

// config is the hooks' configuration on store db.
func (b *recallBench) config(db string) hook.Config {
	cfg := hookConfig(db, retrieve.DefaultRestoreBudget, b.timeout)
	cfg.RecallBudget = b.budget
	return cfg
}

// sweep asks p at every gate. next returns the replay to ask it on; dirty
// says the previous one injected, so its store now skips what it injected
// in this window.
func (b *recallBench) sweep(ctx context.Context, p RecallPrompt, next func(gate int, dirty bool) (*Replay, error)) (RecallPrompt, error) {
	dirty := true
	var r *Replay
	for i, g := range b.gates {
		var err error
		if r, err = next(i, dirty); err != nil {
			return p, err
		}
		r.Config.RecallThresholds = g.thresholds()
		text, res, err := r.Prompt(ctx, p.Prompt)
		if err != nil {
			return p, fmt.Errorf("bench recall: %w", err)
		}
		dirty = res.Output > 0
		p.Chars = append(p.Chars, len(text))
		if p.Set == "positive" {
			p.Hit = append(p.Hit, text != "" && Hit(text, p.Answers))
		}
	}
	return p, nil
}

// forks asks every gate on a copy of base's store, copied again after a
// run that injected.
func (b *recallBench) forks(base *Replay) func(int, bool) (*Replay, error) {
	var cur *Replay
	return func(_ int, dirty bool) (*Replay, error) {
		if cur == nil || dirty {
			var err error
			if cur, err = base.Fork(filepath.Join(b.tmp, "fork.db")); err != nil {
				return nil, err
			}
		}
		return cur, nil
	}
}

// replayCompactions replays lines as session sid on a fresh store db
// through every compaction they hold, and leaves the transcript written
// to the end of the last one.
func (b *recallBench) replayCompactions(ctx context.Context, db, dir, sid string, lines [][]byte) (*Replay, error) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	r, err := NewReplay(b.config(db), dir, sid, lines)
	if err != nil {
		return nil, err
	}
	for _, p := range Compactions(lines) {
		if _, err := r.Compact(ctx, p); err != nil {
			return nil, fmt.Errorf("bench recall: %w", err)
		}
	}
	return r, nil
}

// positives asks each question right after its session's compaction.
func (b *recallBench) positives(ctx context.Context, items []Item, dir string) ([]RecallPrompt, error) {
	order, groups := bySession(items)
	var out []RecallPrompt
	for _, sid := range order {
		lines, err := ReadLines(filepath.Join(dir, sid+".jsonl"))
		if err != nil {
			return nil, fmt.Errorf("bench recall: %w", err)
		}
		if len(Compactions(lines)) == 0 {
			return nil, fmt.Errorf("bench recall: session %s has no compaction", sid)
		}
		base, err := b.replayCompactions(ctx, filepath.Join(b.tmp, "positive.db"), filepath.Join(b.tmp, "positive"), sid, lines)
		if err != nil {
			return nil, err
		}
		for _, it := range groups[sid] {
			p, err := b.sweep(ctx, RecallPrompt{Set: "positive", Session: sid, Prompt: it.Question, Answers: it.Answers}, b.forks(base))
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// firstPrompts asks each session's first prompt as a new session of its
// project, whose archive holds every session of the other projects,
// archived under this project (so the hook finds them as its own
// project's): an archive that cannot hold the answer. Each gate asks as
// another new session, so no run skips what another injected.
func (b *recallBench) firstPrompts(ctx context.Context, sessions []benchSession) ([]RecallPrompt, error) {
	var groups []string
	project := map[string]string{}
	for _, s := range sessions {
		if _, ok := project[s.Group]; !ok {
			groups = append(groups, s.Group)
			project[s.Group] = s.Cwd
		}
	}
	var out []RecallPrompt
	for _, g := range groups {
		var asked []benchSession
		for _, s := range sessions {
			if s.Group == g && len(s.Prompts) > 0 {
				asked = append(asked, s)
			}
		}
		if len(asked) == 0 {
			continue
		}
		db := filepath.Join(b.tmp, "first.db")
		if err := archiveOthers(ctx, db, sessions, g, project[g]); err != nil {
			return nil, err
		}
		dir := filepath.Join(b.tmp, "first")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		for _, s := range asked {
			first := s.Prompts[0]
			p, err := b.sweep(ctx, RecallPrompt{Set: "first", Session: s.ID, Prompt: first.Text}, func(gate int, _ bool) (*Replay, error) {
				r, err := NewReplay(b.config(db), dir, newSessionID(s.ID, gate), s.Lines)
				if err != nil {
					return nil, err
				}
				r.Cwd = project[g]
				return r, r.Write(first.Line)
			})
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
	}
	return out, nil
}

// archiveOthers archives into a fresh store db every session outside group,
// under project, through the Archiver hooks and ingest use.
func archiveOthers(ctx context.Context, db string, sessions []benchSession, group, project string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	st, err := storeopen.Local(ctx, db, storeopen.LocalOptions{})
	if err != nil {
		return fmt.Errorf("bench recall: %w", err)
	}
	a := ingest.Archiver{Store: st}
	for _, s := range sessions {
		if s.Group == group {
			continue
		}
		if _, err := a.File(ctx, s.Path, ingest.Options{SessionID: s.ID, Project: project}); err != nil {
			st.Close()
			return fmt.Errorf("bench recall: ingest %s: %w", s.Path, err)
		}
	}
	return st.Close()
}

// laterPrompts asks each later prompt of a session right after a
// compaction at its line, on the session replayed up to there.
func (b *recallBench) laterPrompts(ctx context.Context, sessions []benchSession) ([]RecallPrompt, error) {
	var out []RecallPrompt
	for _, s := range sessions {
		if len(s.Prompts) < 2 {
			continue
		}
		for _, up := range s.Prompts[1:] {
			lines := append(slices.Clone(s.Lines[:up.Line]), SimulatedBoundary(s.Lines[:up.Line]))
			base, err := b.replayCompactions(ctx, filepath.Join(b.tmp, "later.db"), filepath.Join(b.tmp, "later"), s.ID, lines)
			if err != nil {
				return nil, err
			}
			p, err := b.sweep(ctx, RecallPrompt{Set: "later", Session: s.ID, Prompt: up.Text}, b.forks(base))
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// newSessionID is a session id for a new session derived from a real one,
// shaped like Claude Code's.
func newSessionID(from string, n int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "new session %s %d", from, n))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// benchSession is one real transcript of the benchmark.
type benchSession struct {
	ID, Path string
	Group    string // its project: spotter, or the claude-code-log project directory
	Cwd      string // its first working directory
	Lines    [][]byte
	Prompts  []Prompt
}

// benchSessions reads the main-session transcripts under dir/spotter and
// dir/claude-code-log/<project>/ (subagent files agent-*.jsonl are part of
// their parent's work, not sessions with prompts of their own).
func benchSessions(dir string) ([]benchSession, error) {
	var out []benchSession
	add := func(group, d string) error {
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") {
				continue
			}
			path := filepath.Join(d, name)
			lines, err := ReadLines(path)
			if err != nil {
				return err
			}
			var m lineMeta
			for _, l := range lines {
				if m.merge(l); m.Cwd != "" {
					break
				}
			}
			out = append(out, benchSession{ID: strings.TrimSuffix(name, ".jsonl"), Path: path, Group: group,
				Cwd: m.Cwd, Lines: lines, Prompts: UserPrompts(lines)})
		}
		return nil
	}
	if err := add("spotter", filepath.Join(dir, "spotter")); err != nil {
		return nil, fmt.Errorf("bench recall: %w", err)
	}
	ccl := filepath.Join(dir, "claude-code-log")
	projects, err := os.ReadDir(ccl)
	if err != nil {
		return nil, fmt.Errorf("bench recall: %w", err)
	}
	for _, p := range projects {
		if p.IsDir() {
			if err := add(p.Name(), filepath.Join(ccl, p.Name())); err != nil {
				return nil, fmt.Errorf("bench recall: %w", err)
			}
		}
	}
	return out, nil
}

// Print writes the sweep's table; verbose adds each prompt's outcome at
// the default setting first.
func (r *RecallResult) Print(w io.Writer, verbose bool) error {
	if len(r.Rows) == 0 {
		return fmt.Errorf("bench recall: no settings measured")
	}
	if verbose {
		def := 0 // RecallSweep puts the default first
		for _, p := range r.Prompts {
			mark := "-"
			switch {
			case p.Set == "positive" && p.Hit[def]:
				mark = "HIT"
			case p.Chars[def] > 0:
				mark = "INJ"
			}
			fmt.Fprintf(w, "%-8s %-4s %5d  %-8s %s\n", p.Set, mark, p.Chars[def], carryover.ShortID(p.Session), oneLine(p.Prompt, 90))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Prompt recall (UserPromptSubmit through the hook), budget %d chars: %d positives (compaction-survival questions, asked right after the compaction), %d first prompts (a new session; archive of the other projects), %d later prompts (asked right after a compaction at their line)\n\n",
		r.Budget, r.Rows[0].Positives, r.Rows[0].First, r.Rows[0].Later)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "min score\tmin coverage\tanswer injected\tpositives injected\tfalse injections (first)\tfalse injections (later)\tfalse injections (all)\t")
	for _, row := range r.Rows {
		name := fmt.Sprintf("%.1f\t%.2f", row.MinScore, row.MinCoverage)
		if row.Default {
			name = "(default) " + name
		}
		neg, negInj := row.First+row.Later, row.FirstInject+row.LaterInject
		fmt.Fprintf(tw, "%s\t%d (%.0f %%)\t%d (%.0f %%)\t%d/%d\t%d/%d\t%d/%d (%.0f %%)\t\n", name,
			row.PositiveHits, pct(row.PositiveHits, row.Positives), row.PositiveInject, pct(row.PositiveInject, row.Positives),
			row.FirstInject, row.First, row.LaterInject, row.Later, negInj, neg, pct(negInj, neg))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if ps := recallPerSession(r.Prompts); len(ps) > 1 {
		mean, worst, which := meanWorst(ps, func(s SessionScore) int { return s.Recall })
		_, err := fmt.Fprintf(w, "\nper session, default thresholds: answer injected mean %.0f %%, worst %.0f %% (%s) of %d sessions\n",
			mean, worst, carryover.ShortID(which), len(ps))
		return err
	}
	return nil
}

// recallPerSession counts, for each session with positive prompts, the
// prompts (Items) and those whose answer the default thresholds injected
// (Recall), sessions in the order they come.
func recallPerSession(ps []RecallPrompt) []SessionScore {
	var items []ItemOutcome
	for _, p := range ps {
		if p.Set == "positive" && len(p.Hit) > 0 {
			items = append(items, ItemOutcome{Session: p.Session, Recall: p.Hit[0]})
		}
	}
	return sessionScores(items)
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
