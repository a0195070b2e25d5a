package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/transcript"
)

func (a *app) cmdBench(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr{"bench: give latency, survival, locomo, recall or scale"}
	}
	switch args[0] {
	case "latency":
		return a.benchLatency(ctx, args[1:])
	case "survival":
		return a.benchSurvival(ctx, args[1:])
	case "locomo":
		return a.benchLocomo(ctx, args[1:])
	case "recall":
		return a.benchRecall(ctx, args[1:])
	case "scale":
		return a.benchScale(ctx, args[1:])
	}
	return usageErr{fmt.Sprintf("bench: unknown benchmark %q (latency, survival, locomo, recall, scale)", args[0])}
}

// ---- survival -------------------------------------------------------------

type survivalItem struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	Kind     string   `json:"kind"`
}

type survivalScore struct {
	Kind    string `json:"kind"`
	Items   int    `json:"items"`
	Restore int    `json:"restore_hits"`
	Recall  int    `json:"recall_hits"`
}

func (a *app) benchSurvival(ctx context.Context, args []string) error {
	fl := a.newFlags("bench survival")
	itemsPath := fl.String("items", filepath.Join("..", "shared", "bench", "compaction-survival", "dev.jsonl"), "benchmark items (JSONL)")
	dir := fl.String("transcripts", filepath.Join("..", "shared", "data", "transcripts", "spotter"), "directory of the sessions' transcripts")
	budget := fl.Int("budget", 4000, "characters of restore and of recall text")
	k := fl.Int("k", 8, "recall: top-k hits")
	asJSON := fl.Bool("json", false, "print JSON")
	verbose := fl.Bool("v", false, "print each item's outcome")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	items, err := readItems(*itemsPath)
	if err != nil {
		return hintErr{err, "pass --items and --transcripts (the benchmark lives in the shared data folder beside the repo)"}
	}
	tmp, err := os.MkdirTemp("", "carryover-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	bySession := map[string][]survivalItem{}
	var order []string
	for _, it := range items {
		if _, ok := bySession[it.Session]; !ok {
			order = append(order, it.Session)
		}
		bySession[it.Session] = append(bySession[it.Session], it)
	}
	scores := map[string]*survivalScore{}
	score := func(kind string) *survivalScore {
		if scores[kind] == nil {
			scores[kind] = &survivalScore{Kind: kind}
		}
		return scores[kind]
	}
	for _, sid := range order {
		restoreText, search, err := a.replayToCompaction(ctx, filepath.Join(*dir, sid+".jsonl"), sid, tmp, *budget)
		if err != nil {
			return err
		}
		for _, it := range bySession[sid] {
			recallText, err := search(it.Question, *k)
			if err != nil {
				return err
			}
			rs, rc := containsAny(restoreText, it.Answers), containsAny(recallText, it.Answers)
			for _, s := range []*survivalScore{score(it.Kind), score("all")} {
				s.Items++
				if rs {
					s.Restore++
				}
				if rc {
					s.Recall++
				}
			}
			if *verbose {
				fmt.Fprintf(a.stderr, "%s %-8s restore=%-5v recall=%-5v %s\n", it.ID, it.Kind, rs, rc, it.Answers[0])
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
	kinds = append(kinds, "all")
	if *asJSON {
		out := make([]survivalScore, 0, len(kinds))
		for _, k := range kinds {
			out = append(out, *scores[k])
		}
		return json.NewEncoder(a.stdout).Encode(out)
	}
	fmt.Fprintf(a.stdout, "compaction survival: %d items, restore budget %d chars; recall top-%d, %d chars\n\n", len(items), *budget, *k, *budget)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\titems\trestore\t\trecall\t\t")
	for _, k := range kinds {
		s := scores[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%d\t%.0f%%\t\n", s.Kind, s.Items, s.Restore, pct(s.Restore, s.Items), s.Recall, pct(s.Recall, s.Items))
	}
	return tw.Flush()
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

func containsAny(text string, answers []string) bool {
	lt := strings.ToLower(text)
	for _, ans := range answers {
		if ans != "" && strings.Contains(lt, strings.ToLower(ans)) {
			return true
		}
	}
	return false
}

func readItems(path string) ([]survivalItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench items: %w", err)
	}
	defer f.Close()
	var items []survivalItem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var it survivalItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("bench items %s: %w", path, err)
		}
		items = append(items, it)
	}
	return items, sc.Err()
}

// replayToCompaction archives a session's lines before its last compaction
// into a fresh store and returns the restore text and a recall function, as
// the hooks would produce them right after that compaction.
func (a *app) replayToCompaction(ctx context.Context, path, sid, tmp string, budget int) (string, func(q string, k int) (string, error), error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("bench: %w", err)
	}
	lines := splitLines(data)
	cut, summaryEnd, cwd := compactionPoint(lines)
	summary := ""
	for _, l := range lines[cut:summaryEnd] {
		if e, err := transcript.Decode(bytes.TrimSpace(l)); err == nil && e.CompactSummary {
			summary = e.Text()
		}
	}
	pre := filepath.Join(tmp, sid+".jsonl")
	if err := os.WriteFile(pre, bytes.Join(lines[:cut], nil), 0o600); err != nil {
		return "", nil, err
	}
	st, err := sqlite.Open(ctx, filepath.Join(tmp, sid+".db"), sqlite.Options{})
	if err != nil {
		return "", nil, err
	}
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, pre, ingest.Options{SessionID: sid, Project: cwd}); err != nil {
		st.Close()
		return "", nil, err
	}
	blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: sid, Project: cwd, Window: 1, Summary: summary, Budget: budget})
	if err != nil {
		st.Close()
		return "", nil, err
	}
	restore := blk.Text
	if len(restore) > budget {
		restore = restore[:budget]
	}
	search := func(q string, k int) (string, error) {
		res, err := retrieve.Search(ctx, st, retrieve.SearchRequest{Query: carryover.Query{Text: q, SessionID: sid, Limit: k}, Budget: budget})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, r := range res {
			b.WriteString(r.Text)
			b.WriteByte('\n')
		}
		s := b.String()
		if len(s) > budget {
			s = s[:budget]
		}
		return s, nil
	}
	// The store stays open for the searches; it lives in tmp, removed by the caller.
	return restore, search, nil
}

// ---- latency --------------------------------------------------------------

type latencyRow struct {
	Name     string  `json:"name"`
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms"`
	MaxRSSMB float64 `json:"max_rss_mb"`
	Note     string  `json:"note,omitempty"`
}

func (a *app) benchLatency(ctx context.Context, args []string) error {
	fl := a.newFlags("bench latency")
	dir := fl.String("transcripts", filepath.Join("..", "shared", "data", "transcripts", "spotter"), "directory of transcripts to ingest (default: the built-in sample when absent)")
	runs := fl.Int("runs", 15, "runs per measurement")
	asJSON := fl.Bool("json", false, "print JSON")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *runs < 1 {
		return usageErr{"bench latency: --runs must be at least 1"}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "carryover-latency-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Hooks accept only absolute transcript paths, as Claude Code sends.
	if abs, err := filepath.Abs(*dir); err == nil {
		*dir = abs
	}
	files, _ := filepath.Glob(filepath.Join(*dir, "*.jsonl"))
	if len(files) == 0 {
		sample := filepath.Join(tmp, "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53.jsonl")
		if err := os.WriteFile(sample, demoSession, 0o600); err != nil {
			return err
		}
		files = []string{sample}
		fmt.Fprintf(a.stderr, "carryover: no transcripts in %s: measuring the built-in sample\n", *dir)
	}
	sort.Strings(files)
	largest := files[0]
	for _, f := range files {
		if size(f) > size(largest) {
			largest = f
		}
	}
	var rows []latencyRow
	b := &latencyBench{exe: exe, tmp: tmp, runs: *runs}

	rows = append(rows, b.measure("version", nil, func(int) []string { return []string{"version"} }, nil))
	floor := rows[0].MedianMS

	for _, f := range files {
		sid := ingest.SessionIDFromPath(f)
		payload := hookPayload(sid, f, "PreCompact", `"trigger":"auto","custom_instructions":null`)
		row := b.measure("PreCompact cold ingest "+carryover.ShortID(sid), payload, func(i int) []string {
			return []string{"--db", filepath.Join(tmp, fmt.Sprintf("cold-%s-%d.db", carryover.ShortID(sid), i)), "hook", "pre-compact"}
		}, nil)
		mb := float64(size(f)) / (1 << 20)
		row.Note = fmt.Sprintf("%.1f MB, %.0f ms/MB", mb, row.MedianMS/mb)
		rows = append(rows, row)
	}

	// Incremental: the store holds all but the last 50 lines.
	sid := ingest.SessionIDFromPath(largest)
	data, err := os.ReadFile(largest)
	if err != nil {
		return err
	}
	lines := splitLines(data)
	keep := max(len(lines)-50, 0)
	incPath := filepath.Join(tmp, "inc", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(incPath), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(incPath, bytes.Join(lines[:keep], nil), 0o600); err != nil {
		return err
	}
	baseDB := filepath.Join(tmp, "inc-base.db")
	if err := ingestInto(ctx, baseDB, incPath, sid); err != nil {
		return err
	}
	if err := os.WriteFile(incPath, data, 0o600); err != nil {
		return err
	}
	incPayload := hookPayload(sid, incPath, "PreCompact", `"trigger":"auto","custom_instructions":null`)
	rows = append(rows, b.measure(fmt.Sprintf("PreCompact incremental (50 lines) %s", carryover.ShortID(sid)), incPayload, func(i int) []string {
		return []string{"--db", filepath.Join(tmp, fmt.Sprintf("inc-%d.db", i)), "hook", "pre-compact"}
	}, func(i int) error { return copyFile(baseDB, filepath.Join(tmp, fmt.Sprintf("inc-%d.db", i))) }))

	// Restore and search over the whole largest session.
	fullDB := filepath.Join(tmp, "full.db")
	if err := ingestInto(ctx, fullDB, largest, sid); err != nil {
		return err
	}
	rows = append(rows, b.measure("SessionStart(compact) restore "+carryover.ShortID(sid), hookPayload(sid, largest, "SessionStart", `"source":"compact"`),
		func(int) []string { return []string{"--db", fullDB, "hook", "session-start"} }, nil))
	rows = append(rows, b.measure("UserPromptSubmit recall "+carryover.ShortID(sid), hookPayload(sid, largest, "UserPromptSubmit", `"prompt":"which command made the failing test pass again?"`),
		func(int) []string { return []string{"--db", fullDB, "hook", "user-prompt-submit"} }, nil))
	rows = append(rows, b.measure("search", nil,
		func(int) []string { return []string{"--db", fullDB, "search", "test failure error fix", "--json"} }, nil))
	for i := range rows {
		if rows[i].Note == "" && i > 0 {
			rows[i].Note = fmt.Sprintf("%.1f× version", rows[i].MedianMS/floor)
		}
	}
	if b.err != nil {
		return b.err
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(rows)
	}
	fmt.Fprintf(a.stdout, "whole-process latency, %d runs each (median / p90 / max RSS)\n\n", *runs)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measurement\tmedian\tp90\tRSS\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.1f ms\t%.1f ms\t%.1f MB\t%s\n", r.Name, r.MedianMS, r.P90MS, r.MaxRSSMB, r.Note)
	}
	return tw.Flush()
}

type latencyBench struct {
	exe  string
	tmp  string
	runs int
	err  error
}

// measure runs the binary b.runs times (after one warm-up) with the given
// arguments and stdin, running setup outside the timing.
func (b *latencyBench) measure(name string, stdin []byte, argv func(i int) []string, setup func(i int) error) latencyRow {
	row := latencyRow{Name: name, Runs: b.runs}
	if b.err != nil {
		return row
	}
	var times []float64
	for i := -1; i < b.runs; i++ {
		if setup != nil {
			if err := setup(i); err != nil {
				b.err = err
				return row
			}
		}
		cmd := exec.Command(b.exe, argv(i)...)
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		cmd.Env = append(os.Environ(), "CARRYOVER_LOG="+filepath.Join(b.tmp, "bench.log"))
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.err = fmt.Errorf("bench %s: %w", name, err)
			return row
		}
		el := time.Since(start)
		if i < 0 {
			continue // warm-up: page cache, first open
		}
		times = append(times, float64(el.Microseconds())/1000)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			row.MaxRSSMB = max(row.MaxRSSMB, float64(ru.Maxrss)/1024)
		}
	}
	sort.Float64s(times)
	row.MedianMS = times[len(times)/2]
	row.P90MS = times[min(len(times)-1, len(times)*9/10)]
	return row
}

func hookPayload(sid, path, event, extra string) []byte {
	p, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": path, "cwd": filepath.Dir(path), "hook_event_name": event})
	return append(p[:len(p)-1], []byte(","+extra+"}")...)
}

func ingestInto(ctx context.Context, db, path, sid string) error {
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		return err
	}
	_, err = (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{SessionID: sid, Project: filepath.Dir(path)})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(dst + suffix)
	}
	return os.WriteFile(dst, data, 0o600)
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
