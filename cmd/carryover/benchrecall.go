package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/transcript"
)

// ---- recall ---------------------------------------------------------------
//
// bench recall measures UserPromptSubmit recall as the hook runs it:
//   - positives: the compaction-survival questions, asked right after the
//     compaction of their session (the answer is in an earlier window); a
//     hit is an injected text holding an answer;
//   - negatives "first": the first prompt of each real session, asked
//     against an archive of the sessions of the other projects;
//   - negatives "later": every later prompt of each real session, asked
//     just before its turn was archived, with everything archived before it
//     searchable (as if a compaction had just happened).
// Any injection on a negative is a false injection.

// recallGate is one setting of recall's thresholds.
type recallGate struct {
	MinScore    float64 `json:"min_score"`
	MinCoverage float64 `json:"min_coverage"`
}

func (g recallGate) isDefault() bool {
	return g.MinScore == retrieve.RecallMinScore && g.MinCoverage == retrieve.RecallMinCoverage
}

// recallSweep is the settings the sweep prints besides the default.
func recallSweep() []recallGate {
	gates := []recallGate{{retrieve.RecallMinScore, retrieve.RecallMinCoverage}}
	for _, s := range []float64{1, 4, 8} {
		for _, c := range []float64{0.0001, 0.4, 0.5, 0.6, 0.7, 0.8} {
			g := recallGate{s, c}
			if !g.isDefault() {
				gates = append(gates, g)
			}
		}
	}
	return gates
}

// recallPrompt is one prompt of the benchmark and what recall injects for
// it at each threshold of the sweep.
type recallPrompt struct {
	Set     string   `json:"set"` // positive, first, later
	Session string   `json:"session"`
	Prompt  string   `json:"prompt"`
	Answers []string `json:"answers,omitempty"`
	// Chars[i] is what recall injects at thresholds[i]; Hit[i] whether it
	// holds an answer (positives only).
	Chars []int  `json:"chars"`
	Hit   []bool `json:"hit,omitempty"`
}

type recallRow struct {
	recallGate
	Default        bool `json:"default,omitempty"`
	PositiveHits   int  `json:"positive_hits"`
	PositiveInject int  `json:"positive_injected"`
	Positives      int  `json:"positives"`
	FirstInject    int  `json:"first_injected"`
	First          int  `json:"first"`
	LaterInject    int  `json:"later_injected"`
	Later          int  `json:"later"`
}

func (a *app) benchRecall(ctx context.Context, args []string) error {
	fl := a.newFlags("bench recall")
	itemsPath := fl.String("items", filepath.Join("..", "shared", "bench", "compaction-survival", "dev.jsonl"), "positive questions (JSONL)")
	dir := fl.String("transcripts", filepath.Join("..", "shared", "data", "transcripts"), "directory of real transcripts (spotter/ and claude-code-log/)")
	budget := fl.Int("budget", retrieve.DefaultRecallBudget, "characters recall may inject")
	asJSON := fl.Bool("json", false, "print JSON")
	verbose := fl.Bool("v", false, "print each prompt's outcome")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	items, err := readItems(*itemsPath)
	if err != nil {
		return hintErr{err, "pass --items and --transcripts (the benchmark lives in the shared data folder beside the repo)"}
	}
	sessions, err := benchSessions(*dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "carryover-bench-recall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	thresholds := recallSweep()
	b := &recallBench{app: a, tmp: tmp, budget: *budget, thresholds: thresholds}

	var prompts []recallPrompt
	pos, err := b.positives(ctx, items, filepath.Join(*dir, "spotter"))
	if err != nil {
		return err
	}
	prompts = append(prompts, pos...)
	first, err := b.firstPrompts(ctx, sessions)
	if err != nil {
		return err
	}
	prompts = append(prompts, first...)
	later, err := b.laterPrompts(ctx, sessions)
	if err != nil {
		return err
	}
	prompts = append(prompts, later...)

	rows := make([]recallRow, len(thresholds))
	for i, th := range thresholds {
		r := recallRow{recallGate: th, Default: th.isDefault()}
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
		rows[i] = r
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		out := map[string]any{"budget": *budget, "sweep": rows}
		if *verbose {
			out["prompts"] = prompts
		}
		return enc.Encode(out)
	}
	if *verbose {
		def := 0 // recallSweep puts the default first
		for _, p := range prompts {
			mark := "-"
			switch {
			case p.Set == "positive" && p.Hit[def]:
				mark = "HIT"
			case p.Chars[def] > 0:
				mark = "INJ"
			}
			fmt.Fprintf(a.stdout, "%-8s %-4s %5d  %-8s %s\n", p.Set, mark, p.Chars[def], carryover.ShortID(p.Session), truncate(p.Prompt, 90))
		}
		fmt.Fprintln(a.stdout)
	}
	fmt.Fprintf(a.stdout, "Prompt recall (UserPromptSubmit), budget %d chars: %d positives (compaction-survival questions, answer in an earlier window), %d first prompts (archive of other projects), %d later prompts (archive of what came before)\n\n",
		*budget, rows[0].Positives, rows[0].First, rows[0].Later)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "min score\tmin coverage\tanswer injected\tpositives injected\tfalse injections (first)\tfalse injections (later)\tfalse injections (all)\t")
	for _, r := range rows {
		name := fmt.Sprintf("%.1f\t%.2f", r.MinScore, r.MinCoverage)
		if r.Default {
			name = "(default) " + name
		}
		neg, negInj := r.First+r.Later, r.FirstInject+r.LaterInject
		fmt.Fprintf(tw, "%s\t%d (%.0f %%)\t%d (%.0f %%)\t%d/%d\t%d/%d\t%d/%d (%.0f %%)\t\n", name,
			r.PositiveHits, pct(r.PositiveHits, r.Positives), r.PositiveInject, pct(r.PositiveInject, r.Positives),
			r.FirstInject, r.First, r.LaterInject, r.Later, negInj, neg, pct(negInj, neg))
	}
	return tw.Flush()
}

type recallBench struct {
	app        *app
	tmp        string
	budget     int
	thresholds []recallGate
}

// benchSession is one real transcript of the benchmark.
type benchSession struct {
	ID      string
	Path    string
	Project string // its group: spotter, or the claude-code-log project directory
}

// benchSessions lists the main-session transcripts under dir/spotter and
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
			out = append(out, benchSession{ID: strings.TrimSuffix(name, ".jsonl"), Path: filepath.Join(d, name), Project: group})
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

// run asks recall at every threshold and records what it injects.
func (b *recallBench) run(ctx context.Context, st carryover.Store, p recallPrompt, req retrieve.RecallRequest) (recallPrompt, error) {
	req.Prompt, req.Budget = p.Prompt, b.budget
	for _, th := range b.thresholds {
		req.MinScore, req.MinCoverage = th.MinScore, th.MinCoverage
		blk, err := retrieve.Recall(ctx, st, req)
		if err != nil {
			return p, err
		}
		p.Chars = append(p.Chars, len(blk.Text))
		if p.Set == "positive" {
			p.Hit = append(p.Hit, blk.Text != "" && containsAny(blk.Text, p.Answers))
		}
	}
	return p, nil
}

// positives asks each question right after its session's compaction: the
// pre-compaction part is archived as window 0 and the prompt comes in
// window 1.
func (b *recallBench) positives(ctx context.Context, items []survivalItem, dir string) ([]recallPrompt, error) {
	bySession := map[string][]survivalItem{}
	var order []string
	for _, it := range items {
		if _, ok := bySession[it.Session]; !ok {
			order = append(order, it.Session)
		}
		bySession[it.Session] = append(bySession[it.Session], it)
	}
	var out []recallPrompt
	for _, sid := range order {
		data, err := os.ReadFile(filepath.Join(dir, sid+".jsonl"))
		if err != nil {
			return nil, fmt.Errorf("bench recall: %w", err)
		}
		lines := splitLines(data)
		cut, _, cwd := compactionPoint(lines)
		st, err := b.store(ctx, "pos-"+sid)
		if err != nil {
			return nil, err
		}
		err = b.ingestLines(ctx, st, sid, cwd, lines[:cut])
		if err == nil {
			for _, it := range bySession[sid] {
				var p recallPrompt
				p, err = b.run(ctx, st, recallPrompt{Set: "positive", Session: sid, Prompt: it.Question, Answers: it.Answers},
					retrieve.RecallRequest{SessionID: sid, Project: cwd, Window: 1})
				if err != nil {
					break
				}
				out = append(out, p)
			}
		}
		st.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// firstPrompts asks each session's first prompt against one archive of
// every session, seen through otherProjects so that only sessions of other
// projects can answer.
func (b *recallBench) firstPrompts(ctx context.Context, sessions []benchSession) ([]recallPrompt, error) {
	st, err := b.store(ctx, "all")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for _, s := range sessions {
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, s.Path, ingest.Options{SessionID: s.ID, Project: s.Project}); err != nil {
			return nil, fmt.Errorf("bench recall: ingest %s: %w", s.Path, err)
		}
	}
	var out []recallPrompt
	for _, s := range sessions {
		prompts, err := userPrompts(s.Path)
		if err != nil {
			return nil, err
		}
		if len(prompts) == 0 {
			continue
		}
		view := otherProjects{Store: st, project: s.Project}
		// A new session: nothing of its own is archived yet.
		p, err := b.run(ctx, view, recallPrompt{Set: "first", Session: s.ID, Prompt: prompts[0].text},
			retrieve.RecallRequest{SessionID: "new-" + s.ID, Project: s.Project})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// laterPrompts asks each later prompt of a session with the session
// archived up to just before it, all of it searchable.
func (b *recallBench) laterPrompts(ctx context.Context, sessions []benchSession) ([]recallPrompt, error) {
	var out []recallPrompt
	for _, s := range sessions {
		prompts, err := userPrompts(s.Path)
		if err != nil {
			return nil, err
		}
		if len(prompts) < 2 {
			continue
		}
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, fmt.Errorf("bench recall: %w", err)
		}
		lines := splitLines(data)
		st, err := b.store(ctx, "later-"+s.ID)
		if err != nil {
			return nil, err
		}
		for _, up := range prompts[1:] {
			if err = b.ingestLines(ctx, st, s.ID, s.Project, lines[:up.index]); err != nil {
				break
			}
			var sess carryover.Session
			if sess, err = st.Session(ctx, s.ID); err != nil {
				break
			}
			var p recallPrompt
			p, err = b.run(ctx, st, recallPrompt{Set: "later", Session: s.ID, Prompt: up.text},
				retrieve.RecallRequest{SessionID: s.ID, Project: s.Project, Window: sess.Windows + 1})
			if err != nil {
				break
			}
			out = append(out, p)
		}
		st.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *recallBench) store(ctx context.Context, name string) (carryover.Store, error) {
	st, err := sqlite.Open(ctx, filepath.Join(b.tmp, name+".db"), sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench recall: %w", err)
	}
	return st, nil
}

// ingestLines archives lines as the session's transcript; called again with
// more lines it archives only what was appended.
func (b *recallBench) ingestLines(ctx context.Context, st carryover.Store, sid, project string, lines [][]byte) error {
	path := filepath.Join(b.tmp, sid+".jsonl")
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		return err
	}
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{SessionID: sid, Project: project}); err != nil {
		return fmt.Errorf("bench recall: ingest %s: %w", sid, err)
	}
	return nil
}

type userPrompt struct {
	index int // line index in the transcript
	text  string
}

// userPrompts lists a transcript's real user prompts, without slash
// commands and command output (they never reach recall as prompts).
func userPrompts(path string) ([]userPrompt, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench recall: %w", err)
	}
	var out []userPrompt
	for i, l := range splitLines(data) {
		e, err := transcript.Decode(bytes.TrimSpace(l))
		if err != nil || !e.IsUserPrompt() {
			continue
		}
		text := strings.TrimSpace(e.Text())
		// Interruption markers and command wrappers are written by Claude
		// Code, not typed: no UserPromptSubmit carries them.
		if text == "" || strings.HasPrefix(text, "<") || strings.HasPrefix(text, "/") ||
			strings.HasPrefix(text, "Caveat:") || strings.HasPrefix(text, "[Request interrupted") {
			continue
		}
		out = append(out, userPrompt{index: i, text: text})
	}
	return out, nil
}

// otherProjects is a view of a store in which searches of a project find
// only chunks of the other projects: an archive that cannot hold the answer.
type otherProjects struct {
	carryover.Store
	project string
}

func (o otherProjects) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	if q.Project == "" {
		return o.Store.Search(ctx, q)
	}
	want := q.Limit
	q.Project, q.Limit = "", want*4
	hits, err := o.Store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []carryover.Hit
	for _, h := range hits {
		if h.Chunk.Project != o.project && len(out) < want {
			out = append(out, h)
		}
	}
	return out, nil
}
