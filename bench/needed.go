package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
)

// NeededOptions configure Needed.
type NeededOptions struct {
	// Paths are transcripts or directories of them (walked; subagent
	// transcripts are left out).
	Paths  []string
	Budget int // characters of restore
	// Cuts are the fractions of a transcript's lines at which a
	// transcript without a compaction is cut (default 0.5, 0.7, 0.9).
	Cuts    []float64
	Timeout time.Duration
	// Shares, when not zero, replaces the restore's budget shares (a
	// sweep).
	Shares retrieve.RestoreShares
	// Progress, when set, is told each transcript as it starts.
	Progress func(path string)
	// Vocabulary are the transcripts general vocabulary is computed from
	// (identifiers in the sessions of GeneralRepositories or more
	// repositories); nil: Paths.
	Vocabulary []string
}

// NeededResult is what Needed measured: one row per compaction (or cut).
type NeededResult struct {
	Budget int
	Rows   []NeededRow
	// Specific scores the same restores with general vocabulary left out
	// of what was needed; General is its size, Repositories the
	// repositories it was computed from.
	Specific              []NeededRow
	General, Repositories int
}

// NeededRow scores one compaction: the restore the hooks injected, and
// the two baselines, on the identifiers the session needed after it.
type NeededRow struct {
	Session    string    `json:"session"`
	Line       int       `json:"line"` // 1-based line of the boundary (or of the cut)
	Time       time.Time `json:"time,omitzero"`
	Simulated  bool      `json:"simulated,omitempty"`
	Needed     int       `json:"needed"`
	FromMemory int       `json:"from_memory"`
	// Restore, Tail and Recent count the needed identifiers each holds,
	// and of them the ones typed from memory.
	Restore Held `json:"restore"`
	Tail    Held `json:"last_chars"`
	Recent  Held `json:"recent_identifiers"`
	// Instructions counts the needed identifiers the PreCompact
	// instructions asked the summariser to keep (the session's own list).
	Instructions Held `json:"instructions"`
	RestoreLen   int  `json:"restore_chars"`
	// Missed lists the needed identifiers the restore did not hold, the
	// ones typed from memory first.
	Missed []string `json:"missed,omitempty"`
	// RestoreText is the block itself.
	RestoreText string `json:"restore_text,omitempty"`
}

// Held counts the needed identifiers a text held.
type Held struct {
	All        int `json:"all"`
	FromMemory int `json:"from_memory"`
}

// Needed measures a restore by what the session needed after each
// compaction (see ../shared/bench/needed/README.md): the specific
// identifiers the model typed into its tool calls after the compaction,
// that occur before it and that the summary lacks. Each transcript is
// replayed through the hooks (Replay); for each compaction the restore
// SessionStart(compact) injected is scored beside two baselines: the last
// Budget characters of the transcript, and a recency-weighted list of the
// identifiers of the model's own tool inputs.
func Needed(ctx context.Context, opt NeededOptions) (*NeededResult, error) {
	if opt.Budget <= 0 {
		return nil, fmt.Errorf("bench needed: budget must be positive")
	}
	if opt.Cuts == nil {
		opt.Cuts = []float64{0.5, 0.7, 0.9}
	}
	files, err := NeededTranscripts(opt.Paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("bench needed: no transcripts under %s", strings.Join(opt.Paths, ", "))
	}
	tmp, err := os.MkdirTemp("", "carryover-needed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	vocab := opt.Vocabulary
	if vocab == nil {
		vocab = opt.Paths
	}
	general, nrepo, err := GeneralVocabulary(vocab)
	if err != nil {
		return nil, err
	}
	res := &NeededResult{Budget: opt.Budget, General: len(general), Repositories: nrepo}
	for i, f := range files {
		if opt.Progress != nil {
			opt.Progress(f)
		}
		rows, specific, err := neededFile(ctx, opt, filepath.Join(tmp, fmt.Sprint(i)), f, general)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rows...)
		res.Specific = append(res.Specific, specific...)
	}
	return res, nil
}

// NeededTranscripts expands paths into main-session transcripts: files as
// given, directories walked for *.jsonl without subagent transcripts
// (agent-*.jsonl, subagents/).
func NeededTranscripts(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("bench needed: %w", err)
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "subagents" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") && !strings.HasPrefix(d.Name(), "agent-") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bench needed: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// neededFile replays one transcript: through its compactions in order on
// one store, or each simulated cut on a store of its own.
func neededFile(ctx context.Context, opt NeededOptions, dir, path string, general map[string]bool) (rows, specific []NeededRow, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	sid := ingest.SessionIDFromPath(path)
	cases, lines, err := neededCases(path, sid, opt.Cuts)
	if err != nil {
		return nil, nil, fmt.Errorf("bench needed: %w", err)
	}
	var r *Replay
	for i, c := range cases {
		if r == nil || c.Simulated {
			d := filepath.Join(dir, fmt.Sprint(i))
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, nil, err
			}
			cfg := hookConfig(filepath.Join(d, "store.db"), opt.Budget, opt.Timeout)
			cfg.RestoreShares = opt.Shares
			if r, err = NewReplay(cfg, d, sid, lines); err != nil {
				return nil, nil, err
			}
		}
		p := Cut(c.Boundary)
		if !c.Simulated {
			p = Point{Boundary: c.Boundary, Summary: c.Boundary + 1}
			if c.SummaryAt >= 0 {
				p.Summary = c.SummaryAt + 1
			}
		}
		comp, err := r.Compact(ctx, p)
		if err != nil {
			return nil, nil, fmt.Errorf("bench needed: %s: %w", c, err)
		}
		restore := cut(comp.Restore, opt.Budget)
		rows = append(rows, scoreRow(opt, sid, lines, c, comp, restore))
		specific = append(specific, scoreRow(opt, sid, lines, c.withoutGeneral(general), comp, restore))
	}
	return rows, specific, nil
}

// scoreRow scores one compaction's restore, instructions and baselines on
// what the case needed.
func scoreRow(opt NeededOptions, sid string, lines [][]byte, c neededCase, comp Compaction, restore string) NeededRow {
	row := NeededRow{Session: sid, Line: c.Boundary + 1, Simulated: c.Simulated, Needed: len(c.Needed),
		FromMemory: len(c.FromMemory), RestoreLen: len(restore), RestoreText: restore}
	row.Time = lineTime(lines, c.Boundary)
	// A family written as a shell does (dir/{a.ex,b.ex}) holds each of its
	// members.
	restore = restore + "\n" + expandFamilies(restore)
	row.Restore.All, row.Restore.FromMemory = c.score(restore)
	tail := c.Tail
	if len(tail) > opt.Budget {
		tail = tail[len(tail)-opt.Budget:]
	}
	row.Tail.All, row.Tail.FromMemory = c.score(tail)
	row.Recent.All, row.Recent.FromMemory = c.score(packList(c.Recent, opt.Budget))
	row.Instructions.All, row.Instructions.FromMemory = c.score(comp.Instructions + "\n" + expandFamilies(comp.Instructions))
	for _, mem := range []bool{true, false} {
		for _, id := range c.Needed {
			if c.FromMemory[id] == mem && !held(restore, id, c.Cwd) {
				row.Missed = append(row.Missed, id)
			}
		}
	}
	return row
}

// lineTime is the time of the line at i, or of the nearest line before it
// that has one.
func lineTime(lines [][]byte, i int) time.Time {
	var m lineMeta
	for j := min(i, len(lines)-1); j >= 0 && j >= i-50; j-- {
		m = lineMeta{}
		m.merge(lines[j])
		if m.Timestamp != "" {
			t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
			if err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// NeededSummary aggregates rows of one kind (real or simulated): totals,
// the mean of the sessions' rates and the worst session's.
type NeededSummary struct {
	Cases        int  `json:"cases"`
	Sessions     int  `json:"sessions"`
	Needed       int  `json:"needed"`
	FromMemory   int  `json:"from_memory"`
	Restore      Held `json:"restore"`
	Tail         Held `json:"last_chars"`
	Recent       Held `json:"recent_identifiers"`
	Instructions Held `json:"instructions"`
	// Mean and Worst are per-session rates (held / needed) of the
	// restore; WorstSession names the worst by from-memory rate.
	MeanAll         float64 `json:"mean_all"`
	MeanFromMemory  float64 `json:"mean_from_memory"`
	WorstAll        float64 `json:"worst_all"`
	WorstFromMemory float64 `json:"worst_from_memory"`
	WorstSession    string  `json:"worst_session"`
}

// Summary aggregates the real compactions (simulated false) or the cuts.
func (r *NeededResult) Summary(simulated bool) NeededSummary {
	return summarize(r.Rows, simulated)
}

// SpecificSummary is Summary with general vocabulary left out of what
// was needed.
func (r *NeededResult) SpecificSummary(simulated bool) NeededSummary {
	return summarize(r.Specific, simulated)
}

func summarize(rows []NeededRow, simulated bool) NeededSummary {
	var s NeededSummary
	type agg struct{ needed, mem, held, heldMem int }
	per := map[string]*agg{}
	var order []string
	for _, row := range rows {
		if row.Simulated != simulated {
			continue
		}
		s.Cases++
		s.Needed += row.Needed
		s.FromMemory += row.FromMemory
		s.Restore = addHeld(s.Restore, row.Restore)
		s.Tail = addHeld(s.Tail, row.Tail)
		s.Recent = addHeld(s.Recent, row.Recent)
		s.Instructions = addHeld(s.Instructions, row.Instructions)
		a := per[row.Session]
		if a == nil {
			a = &agg{}
			per[row.Session] = a
			order = append(order, row.Session)
		}
		a.needed += row.Needed
		a.mem += row.FromMemory
		a.held += row.Restore.All
		a.heldMem += row.Restore.FromMemory
	}
	s.WorstAll, s.WorstFromMemory = 1, 1
	n, nm := 0, 0
	for _, id := range order {
		a := per[id]
		if a.needed > 0 {
			rate := float64(a.held) / float64(a.needed)
			s.MeanAll += rate
			s.WorstAll = min(s.WorstAll, rate)
			n++
		}
		if a.mem > 0 {
			rate := float64(a.heldMem) / float64(a.mem)
			s.MeanFromMemory += rate
			if rate < s.WorstFromMemory {
				s.WorstFromMemory, s.WorstSession = rate, id
			}
			nm++
		}
	}
	s.Sessions = len(order)
	if n > 0 {
		s.MeanAll /= float64(n)
	} else {
		s.WorstAll = 0
	}
	if nm > 0 {
		s.MeanFromMemory /= float64(nm)
	} else {
		s.WorstFromMemory = 0
	}
	return s
}

func addHeld(a, b Held) Held { return Held{a.All + b.All, a.FromMemory + b.FromMemory} }

func rate(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(n)/float64(d))
}

// Print writes one row per compaction, then the totals, the mean and the
// worst session, for real compactions and simulated cuts apart. With show,
// the identifiers each restore missed follow its row.
func (r *NeededResult) Print(w io.Writer, show bool) error {
	fmt.Fprintf(w, "What the session needed after each compaction: specific identifiers the model typed into its tool calls\n"+
		"afterwards, that occur before the compaction and that the summary lacks (\"from memory\": typed before anything\n"+
		"in the new window showed them again). Restore: what SessionStart(compact) injected, %d chars; beside it the last\n"+
		"%d chars of the transcript and a recency-weighted list of the model's own tool-input identifiers.\n\n", r.Budget, r.Budget)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tAT\tWHEN\tNEEDED\tRESTORE\t\tFROM MEMORY\tRESTORE\t\tLAST CHARS\tRECENT IDS\t")
	for _, row := range r.Rows {
		at := fmt.Sprintf("L%d", row.Line)
		if row.Simulated {
			at += " (cut)"
		}
		when := ""
		if !row.Time.IsZero() {
			when = row.Time.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%s\t%s / %s\t%s / %s\t\n", shortID(row.Session), at, when,
			row.Needed, row.Restore.All, rate(row.Restore.All, row.Needed),
			row.FromMemory, row.Restore.FromMemory, rate(row.Restore.FromMemory, row.FromMemory),
			rate(row.Tail.All, row.Needed), rate(row.Tail.FromMemory, row.FromMemory),
			rate(row.Recent.All, row.Needed), rate(row.Recent.FromMemory, row.FromMemory))
		if show {
			tw.Flush()
			if len(row.Missed) > 0 {
				fmt.Fprintf(w, "    missed: %s\n", strings.Join(row.Missed, " "))
			}
			fmt.Fprintf(w, "    restore:\n      %s\n", strings.ReplaceAll(strings.TrimRight(row.RestoreText, "\n"), "\n", "\n      "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, sim := range []bool{false, true} {
		s := r.Summary(sim)
		if s.Cases == 0 {
			continue
		}
		kind := "real compactions"
		if sim {
			kind = "simulated cuts (no summary)"
		}
		fmt.Fprintf(w, "\n%s: %d in %d sessions\n", kind, s.Cases, s.Sessions)
		printSummary(w, s, r.Budget)
		fmt.Fprintf(w, "%s, general vocabulary left out (%d identifiers in the sessions of %d or more of %d repositories):\n",
			kind, r.General, GeneralRepositories, r.Repositories)
		printSummary(w, r.SpecificSummary(sim), r.Budget)
	}
	return nil
}

func printSummary(w io.Writer, s NeededSummary, budget int) {
	fmt.Fprintf(w, "  restore             all needed %d/%d (%s), from memory %d/%d (%s)\n", s.Restore.All, s.Needed,
		rate(s.Restore.All, s.Needed), s.Restore.FromMemory, s.FromMemory, rate(s.Restore.FromMemory, s.FromMemory))
	fmt.Fprintf(w, "  per session         mean %.0f %% / %.0f %%, worst %.0f %% / %.0f %% (from memory: %s)\n",
		100*s.MeanAll, 100*s.MeanFromMemory, 100*s.WorstAll, 100*s.WorstFromMemory, shortID(s.WorstSession))
	fmt.Fprintf(w, "  last %d chars     %s / %s\n", budget, rate(s.Tail.All, s.Needed), rate(s.Tail.FromMemory, s.FromMemory))
	fmt.Fprintf(w, "  recent identifiers  %s / %s\n", rate(s.Recent.All, s.Needed), rate(s.Recent.FromMemory, s.FromMemory))
	fmt.Fprintf(w, "  compaction list     %s / %s (the PreCompact instructions' keep-verbatim list)\n",
		rate(s.Instructions.All, s.Needed), rate(s.Instructions.FromMemory, s.FromMemory))
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// JSON is what 'bench needed --json' prints: the rows and the summaries
// of the real and the simulated compactions.
func (r *NeededResult) JSON() map[string]any {
	return map[string]any{"budget": r.Budget, "rows": r.Rows, "real": r.Summary(false), "simulated": r.Summary(true),
		"general_vocabulary": r.General, "repositories": r.Repositories,
		"specific_real": r.SpecificSummary(false), "specific_simulated": r.SpecificSummary(true)}
}

// expandFamilies lists, space-separated, the words a text's brace families
// stand for: a/{b,c}.d is a/b.d and a/c.d.
func expandFamilies(text string) string {
	var b strings.Builder
	for _, f := range strings.Fields(text) {
		if strings.Contains(f, "{") && strings.Contains(f, ",") {
			for _, w := range expandBraces(strings.Trim(f, "`'\"")) {
				b.WriteString(w)
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// expandBraces expands the first {x,y} of a word, then the rest.
func expandBraces(w string) []string {
	i := strings.IndexByte(w, '{')
	j := strings.IndexByte(w[max(i, 0):], '}')
	if i < 0 || j < 0 {
		return []string{w}
	}
	j += i
	var out []string
	for _, m := range strings.Split(w[i+1:j], ",") {
		out = append(out, expandBraces(w[:i]+m+w[j+1:])...)
	}
	return out
}
