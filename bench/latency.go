package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/storeopen"
)

// Timing is one binary's figures for a measurement.
type Timing struct {
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms"`
	// CPUMS is the median CPU time (user and system) of a run: other work
	// on a shared machine delays a run far more than it adds to its CPU
	// time, so CPU ratios are the steadier comparison.
	CPUMS    float64 `json:"cpu_ms"`
	MaxRSSMB float64 `json:"max_rss_mb"`
}

// LatencyRow is one measurement: this binary's timing and, with a
// comparison, the other binary's, measured run for run with it.
type LatencyRow struct {
	Name string `json:"name"`
	Runs int    `json:"runs"`
	Timing
	Note    string  `json:"note,omitempty"`
	Compare *Timing `json:"compare,omitempty"`
}

// LatencyOptions configure Latency.
type LatencyOptions struct {
	Exe string // the binary measured
	// Compare, when set, is a second binary measured interleaved with Exe,
	// run for run, on stores it builds itself.
	Compare     string
	Transcripts string // directory of transcripts (*.jsonl)
	// Sample is measured when Transcripts holds none; SampleID is its
	// session id.
	Sample   []byte
	SampleID string
	Runs     int
	Log      io.Writer // notes for the user (stderr)
}

// LatencyResult is what Latency measured.
type LatencyResult struct {
	Exe, Compare string
	Runs         int
	Rows         []LatencyRow
}

// Latency times whole processes of the binary, as Claude Code runs them:
// `version` (the process floor), PreCompact's cold ingest of each
// transcript, an incremental PreCompact (50 new lines), the restore and
// the recall hooks and `carryover search` on the largest session. Each
// binary builds its stores with its own hooks (Stop), so two versions
// with different schemas can be compared.
func Latency(ctx context.Context, opt LatencyOptions) (*LatencyResult, error) {
	if opt.Runs < 1 {
		return nil, fmt.Errorf("bench latency: runs must be at least 1")
	}
	var err error
	if opt.Exe, err = thisOr(opt.Exe); err != nil {
		return nil, err
	}
	if opt.Compare != "" {
		if opt.Compare, err = filepath.Abs(opt.Compare); err != nil {
			return nil, fmt.Errorf("bench latency: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "carryover-latency-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	// Hooks accept only absolute transcript paths, as Claude Code sends.
	dir, err := filepath.Abs(opt.Transcripts)
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		if len(opt.Sample) == 0 {
			return nil, fmt.Errorf("bench latency: no transcripts in %s", dir)
		}
		sample := filepath.Join(tmp, opt.SampleID+".jsonl")
		if err := os.WriteFile(sample, opt.Sample, 0o600); err != nil {
			return nil, err
		}
		files = []string{sample}
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "carryover: no transcripts in %s: measuring the built-in sample\n", dir)
		}
	}
	sort.Strings(files)
	largest := files[0]
	for _, f := range files {
		if fileSize(f) > fileSize(largest) {
			largest = f
		}
	}
	exes := []string{opt.Exe}
	if opt.Compare != "" {
		exes = append(exes, opt.Compare)
	}
	b := &latencyBench{exes: exes, tmp: tmp, runs: opt.Runs}
	res := &LatencyResult{Exe: opt.Exe, Compare: opt.Compare, Runs: opt.Runs}
	add := func(row LatencyRow, err error) error {
		if err == nil {
			res.Rows = append(res.Rows, row)
		}
		return err
	}
	if err := add(b.measure(measurement{name: "version", argv: func(int, int) []string { return []string{"version"} }})); err != nil {
		return nil, err
	}

	for _, f := range files {
		sid := ingest.SessionIDFromPath(f)
		payload := hookPayload(sid, f, "PreCompact", `"trigger":"auto","custom_instructions":null`)
		db := func(bin, i int) string { return filepath.Join(tmp, fmt.Sprintf("cold-%d-%d.db", bin, i)) }
		row, err := b.measure(measurement{
			name:  "PreCompact cold ingest " + carryover.ShortID(sid),
			stdin: func(int) []byte { return payload },
			argv:  func(bin, i int) []string { return []string{"--db", db(bin, i), "hook", "pre-compact"} },
			after: func(bin, i int) error { return removeStore(db(bin, i)) },
			check: nonEmpty,
		})
		if err != nil {
			return nil, err
		}
		mb := float64(fileSize(f)) / (1 << 20)
		row.Note = fmt.Sprintf("%.1f MB, %.0f ms/MB", mb, row.MedianMS/mb)
		res.Rows = append(res.Rows, row)
	}

	// Incremental: each binary's store holds all but the last 50 lines.
	sid := ingest.SessionIDFromPath(largest)
	lines, err := ReadLines(largest)
	if err != nil {
		return nil, err
	}
	keep := max(len(lines)-50, 0)
	incPath := filepath.Join(tmp, "inc", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(incPath), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(incPath, bytes.Join(lines[:keep], nil), 0o600); err != nil {
		return nil, err
	}
	base := func(bin int) string { return filepath.Join(tmp, fmt.Sprintf("inc-base-%d.db", bin)) }
	full := func(bin int) string { return filepath.Join(tmp, fmt.Sprintf("full-%d.db", bin)) }
	for bin := range exes {
		if err := b.archive(ctx, bin, base(bin), sid, incPath); err != nil {
			return nil, err
		}
		if err := b.archive(ctx, bin, full(bin), sid, largest); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(incPath, bytes.Join(lines, nil), 0o600); err != nil {
		return nil, err
	}
	incPayload := hookPayload(sid, incPath, "PreCompact", `"trigger":"auto","custom_instructions":null`)
	inc := func(bin, i int) string { return filepath.Join(tmp, fmt.Sprintf("inc-%d-%d.db", bin, i)) }
	if err := add(b.measure(measurement{
		name:   fmt.Sprintf("PreCompact incremental (50 lines) %s", carryover.ShortID(sid)),
		stdin:  func(int) []byte { return incPayload },
		argv:   func(bin, i int) []string { return []string{"--db", inc(bin, i), "hook", "pre-compact"} },
		before: func(bin, i int) error { return copyStore(base(bin), inc(bin, i)) },
		after:  func(bin, i int) error { return removeStore(inc(bin, i)) },
		check:  nonEmpty,
	})); err != nil {
		return nil, err
	}
	// PostCompact, after that PreCompact: it indexes the passages
	// PreCompact left (Claude Code waits on it too, before the next
	// request).
	postPayload := hookPayload(sid, incPath, "PostCompact", `"trigger":"auto"`)
	post := func(bin, i int) string { return filepath.Join(tmp, fmt.Sprintf("post-%d-%d.db", bin, i)) }
	if err := add(b.measure(measurement{
		name:  fmt.Sprintf("PostCompact after it %s", carryover.ShortID(sid)),
		stdin: func(int) []byte { return postPayload },
		argv:  func(bin, i int) []string { return []string{"--db", post(bin, i), "hook", "post-compact"} },
		before: func(bin, i int) error {
			if err := copyStore(base(bin), post(bin, i)); err != nil {
				return err
			}
			return b.hook(ctx, bin, post(bin, i), "pre-compact", incPayload)
		},
		after: func(bin, i int) error { return removeStore(post(bin, i)) },
	})); err != nil {
		return nil, err
	}

	// Restore, recall and search over the whole largest session.
	restore := hookPayload(sid, largest, "SessionStart", `"source":"compact"`)
	recall := hookPayload(sid, largest, "UserPromptSubmit", `"prompt":"which command made the failing test pass again?"`)
	for _, m := range []measurement{
		{name: "SessionStart(compact) restore " + carryover.ShortID(sid), stdin: func(int) []byte { return restore },
			argv: func(bin, _ int) []string { return []string{"--db", full(bin), "hook", "session-start"} }, check: nonEmpty},
		{name: "UserPromptSubmit recall " + carryover.ShortID(sid), stdin: func(int) []byte { return recall },
			argv: func(bin, _ int) []string { return []string{"--db", full(bin), "hook", "user-prompt-submit"} }},
		{name: "search",
			argv: func(bin, _ int) []string {
				return []string{"--db", full(bin), "search", "test failure error fix", "--json"}
			}},
	} {
		if err := add(b.measure(m)); err != nil {
			return nil, err
		}
	}
	if opt.Compare == "" {
		// The tool hooks, on the store the restore above left its recall
		// index beside (an older binary has neither hook nor index).
		rows, err := b.toolHooks(sid, largest, full(0))
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rows...)
	}
	floor := res.Rows[0]
	for i := range res.Rows[1:] {
		r := &res.Rows[i+1]
		if r.Note == "" {
			r.Note = fmt.Sprintf("%.1f× version", r.MedianMS/floor.MedianMS)
		}
	}
	return res, nil
}

// toolHooks measures PostToolUse and PostToolUseFailure on db, the
// archive of the session sid (transcript path, window 1 after its
// compaction, its recall index written): each when nothing is recalled, the
// usual case, and when it recalls, on a fresh copy of the store each run
// (a recall is made once per window).
func (b *latencyBench) toolHooks(sid, path, db string) ([]LatencyRow, error) {
	st, err := storeopen.Local(context.Background(), db, storeopen.LocalOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	edited, err := st.Items(context.Background(), carryover.ItemFilter{SessionID: sid, Kinds: []carryover.ItemKind{carryover.KindFileEdit}, BeforeWindow: 1})
	if err != nil {
		st.Close()
		return nil, err
	}
	errs, err := st.Items(context.Background(), carryover.ItemFilter{SessionID: sid, Kinds: []carryover.ItemKind{carryover.KindError}, BeforeWindow: 1})
	st.Close()
	if err != nil {
		return nil, err
	}
	if len(edited) == 0 {
		return nil, fmt.Errorf("bench latency: session %s changed no file before its compaction", sid)
	}
	cwd := filepath.Dir(path)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	read := func(file string) []byte {
		in, _ := json.Marshal(map[string]any{"file_path": file})
		return hookPayload(sid, path, "PostToolUse", `"tool_name":"Read","tool_use_id":"toolu_bench","tool_response":{"type":"text"},"tool_input":`+string(in))
	}
	failure := func(command, errText string) []byte {
		in, _ := json.Marshal(map[string]any{"command": command})
		e, _ := json.Marshal(errText)
		return hookPayload(sid, path, "PostToolUseFailure", `"tool_name":"Bash","tool_use_id":"toolu_bench","is_interrupt":false,"error":`+string(e)+`,"tool_input":`+string(in))
	}
	fresh := func(i int) string { return filepath.Join(b.tmp, fmt.Sprintf("tool-%d.db", i)) }
	copyFresh := func(_, i int) error {
		if err := copyStore(db, fresh(i)); err != nil {
			return err
		}
		return copyDir(db+".recall", fresh(i)+".recall")
	}
	removeFresh := func(_, i int) error {
		os.RemoveAll(fresh(i) + ".recall")
		return removeStore(fresh(i))
	}
	unrelated := read(abs("lib/never/touched_by_this_session.ex"))
	// The file recalled: the first of the most edited files whose recall
	// says something the summary does not.
	slices.SortStableFunc(edited, func(a, b carryover.Item) int { return b.Count - a.Count })
	var recalled []byte
	for _, it := range edited[:min(len(edited), 8)] {
		p := read(abs(it.Text))
		probe := measurement{name: "probe file recall", stdin: func(int) []byte { return p },
			argv:   func(_, i int) []string { return []string{"--db", fresh(i), "hook", "post-tool-use"} },
			before: copyFresh, after: removeFresh, check: nonEmpty}
		if _, _, _, err := b.run(probe, 0, -1); err == nil {
			recalled = p
			break
		}
		removeFresh(0, -1)
	}
	if recalled == nil {
		return nil, fmt.Errorf("bench latency: no file of session %s is recalled after its compaction", sid)
	}
	noFix := failure("mix frobnicate", "Exit code 1\n** (Mix) The task \"frobnicate\" could not be found")
	// A failure of the first window that was fixed, as Claude Code
	// reports it again: the command, "Exit code N" and the error lines.
	var fixed []byte
	for _, it := range errs {
		_, call, ok := strings.Cut(it.Detail, " — in $ ")
		code, lines, ok2 := strings.Cut(strings.TrimPrefix(it.Text, "exit "), ": ")
		if it.Resolved && ok && ok2 && strings.HasPrefix(it.Text, "exit ") {
			fixed = failure(call, "Exit code "+code+"\n"+strings.ReplaceAll(lines, " | ", "\n"))
			break
		}
	}
	ms := []measurement{
		{name: "PostToolUse, nothing to recall (Read of a file not changed)", stdin: func(int) []byte { return unrelated },
			argv: func(_, _ int) []string { return []string{"--db", db, "hook", "post-tool-use"} }, check: empty},
		{name: "PostToolUse, file recall (Read of a file changed before the compaction)", stdin: func(int) []byte { return recalled },
			argv: func(_, i int) []string { return []string{"--db", fresh(i), "hook", "post-tool-use"} }, before: copyFresh, after: removeFresh, check: nonEmpty},
		{name: "PostToolUseFailure, no fix to recall", stdin: func(int) []byte { return noFix },
			argv: func(_, _ int) []string { return []string{"--db", db, "hook", "post-tool-use-failure"} }, check: empty},
	}
	if fixed != nil {
		ms = append(ms, measurement{name: "PostToolUseFailure, failure recall", stdin: func(int) []byte { return fixed },
			argv: func(_, i int) []string { return []string{"--db", fresh(i), "hook", "post-tool-use-failure"} }, before: copyFresh, after: removeFresh,
			check: nonEmpty})
	}
	var rows []LatencyRow
	for _, m := range ms {
		row, err := b.measure(m)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func empty(out []byte) error {
	if len(bytes.TrimSpace(out)) != 0 {
		return fmt.Errorf("printed %.80q where nothing was expected", out)
	}
	return nil
}

// copyDir copies the regular files of a directory (none when it does not
// exist).
func copyDir(src, dst string) error {
	ents, err := os.ReadDir(src)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// measurement is one row: the arguments and stdin of run i (-1 is the
// warm-up) of binary bin, what to do before and after it outside the
// timing, and a check of its output (a hook that failed prints nothing:
// its time would measure nothing).
type measurement struct {
	name          string
	stdin         func(i int) []byte
	argv          func(bin, i int) []string
	before, after func(bin, i int) error
	check         func(out []byte) error
}

func nonEmpty(out []byte) error {
	if len(bytes.TrimSpace(out)) == 0 {
		return fmt.Errorf("printed nothing (see the log)")
	}
	return nil
}

type latencyBench struct {
	exes []string // the binary measured, then the one compared
	tmp  string
	runs int
}

// measure runs each binary b.runs times after one warm-up, interleaved
// run for run, the order alternating so that neither always runs first.
func (b *latencyBench) measure(m measurement) (LatencyRow, error) {
	row := LatencyRow{Name: m.name, Runs: b.runs}
	times := make([][]float64, len(b.exes))
	cpus := make([][]float64, len(b.exes))
	rss := make([]float64, len(b.exes))
	for i := -1; i < b.runs; i++ {
		for k := range b.exes {
			bin := k
			if i%2 != 0 {
				bin = len(b.exes) - 1 - k
			}
			el, cpu, maxRSS, err := b.run(m, bin, i)
			if err != nil {
				return row, err
			}
			if i >= 0 { // the warm-up fills the page cache
				times[bin] = append(times[bin], el)
				cpus[bin] = append(cpus[bin], cpu)
				rss[bin] = max(rss[bin], maxRSS)
			}
		}
	}
	for bin := range b.exes {
		t := timing(times[bin], rss[bin])
		t.CPUMS = median(cpus[bin])
		if bin == 0 {
			row.Timing = t
		} else {
			row.Compare = &t
		}
	}
	return row, nil
}

// run runs binary bin once and returns its wall and CPU time in ms and its
// peak RSS in MB.
func (b *latencyBench) run(m measurement, bin, i int) (wall, cpu, rss float64, err error) {
	if m.before != nil {
		if err := m.before(bin, i); err != nil {
			return 0, 0, 0, fmt.Errorf("bench %s: %w", m.name, err)
		}
	}
	cmd := exec.Command(b.exes[bin], m.argv(bin, i)...)
	if m.stdin != nil {
		cmd.Stdin = bytes.NewReader(m.stdin(i))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	// The deadline is generous: a hook stopped by it would time the
	// deadline, not the work.
	cmd.Env = append(os.Environ(), "CARRYOVER_LOG="+filepath.Join(b.tmp, fmt.Sprintf("bench-%d.log", bin)),
		"CARRYOVER_HOOK_TIMEOUT="+DefaultHookTimeout.String())
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("bench %s: %s: %w", m.name, b.exes[bin], err)
	}
	el := time.Since(start)
	if m.check != nil {
		if err := m.check(out.Bytes()); err != nil {
			return 0, 0, 0, fmt.Errorf("bench %s: %s %s", m.name, b.exes[bin], err)
		}
	}
	if m.after != nil {
		if err := m.after(bin, i); err != nil {
			return 0, 0, 0, fmt.Errorf("bench %s: %w", m.name, err)
		}
	}
	rss = peakRSSMB(cmd.ProcessState)
	cpu = float64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Microseconds()) / 1000
	return float64(el.Microseconds()) / 1000, cpu, rss, nil
}

// median returns the middle of xs (sorting it).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func timing(ms []float64, rss float64) Timing {
	sort.Float64s(ms)
	return Timing{MedianMS: ms[len(ms)/2], P90MS: ms[min(len(ms)-1, len(ms)*9/10)], MaxRSSMB: rss}
}

// archive builds a store with binary bin's own Stop hook, given all the
// time it needs.
func (b *latencyBench) archive(ctx context.Context, bin int, db, sid, path string) error {
	if err := b.hook(ctx, bin, db, "stop", hookPayload(sid, path, "Stop", `"stop_hook_active":false`)); err != nil {
		return err
	}
	if fileSize(db) == 0 {
		return fmt.Errorf("bench latency: %s archived nothing into %s", b.exes[bin], db)
	}
	return nil
}

// hook runs a hook of binary bin on db, untimed.
func (b *latencyBench) hook(ctx context.Context, bin int, db, event string, payload []byte) error {
	cmd := exec.CommandContext(ctx, b.exes[bin], "--db", db, "hook", event)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Env = append(os.Environ(), "CARRYOVER_LOG="+filepath.Join(b.tmp, fmt.Sprintf("bench-%d.log", bin)),
		"CARRYOVER_HOOK_TIMEOUT="+DefaultHookTimeout.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("bench latency: %s with %s: %w: %s", event, b.exes[bin], err, out)
	}
	return nil
}

// hookPayload is a payload of Claude Code's shape for the transcript at
// path, its directory standing for the project.
func hookPayload(sid, path, event, extra string) []byte {
	p, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": path, "cwd": filepath.Dir(path), "hook_event_name": event})
	return append(p[:len(p)-1], []byte(","+extra+"}")...)
}

func removeStore(db string) error {
	for _, p := range append([]string{db, db + "-wal", db + "-shm"}, storeopen.JournalFiles(db)...) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Print writes the table: with a comparison, both binaries' columns and
// the ratio of the medians.
func (r *LatencyResult) Print(w io.Writer) error {
	fmt.Fprintf(w, "whole-process latency, %d runs each (median / p90 / median CPU time / max RSS)\n", r.Runs)
	if r.Compare != "" {
		fmt.Fprintf(w, "this: %s\nother: %s (interleaved run for run)\n", r.Exe, r.Compare)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "measurement\tmedian\tp90\tCPU\tRSS\t"
	if r.Compare != "" {
		head = "measurement\tthis median\tp90\tCPU\tRSS\tother median\tp90\tCPU\tRSS\tthis/other\tCPU\t"
	}
	fmt.Fprintln(tw, head)
	for _, row := range r.Rows {
		cols := []string{row.Name, fmt.Sprintf("%.1f ms", row.MedianMS), fmt.Sprintf("%.1f ms", row.P90MS),
			fmt.Sprintf("%.1f ms", row.CPUMS), fmt.Sprintf("%.1f MB", row.MaxRSSMB)}
		if c := row.Compare; c != nil {
			cols = append(cols, fmt.Sprintf("%.1f ms", c.MedianMS), fmt.Sprintf("%.1f ms", c.P90MS), fmt.Sprintf("%.1f ms", c.CPUMS),
				fmt.Sprintf("%.1f MB", c.MaxRSSMB), fmt.Sprintf("%.2f", row.MedianMS/c.MedianMS), fmt.Sprintf("%.2f", row.CPUMS/c.CPUMS))
		}
		fmt.Fprintf(tw, "%s\t%s\n", strings.Join(cols, "\t"), row.Note)
	}
	return tw.Flush()
}
