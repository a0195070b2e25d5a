package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/transcript"
)

// ScaleResult is what Scale measured.
type ScaleResult struct {
	Store        string       `json:"store"` // "sqlite" or "postgresql"
	Chunks       int          `json:"chunks"`
	Sessions     int          `json:"sessions"`
	Projects     int          `json:"projects"`
	IngestS      float64      `json:"ingest_s"`
	ChunksPerS   float64      `json:"chunks_per_s"`
	StoreMB      float64      `json:"store_mb"`
	Vocabulary   int          `json:"vocabulary_lines"`
	Measurements []LatencyRow `json:"latency"`
	Runs         int          `json:"-"`
}

// Queries and prompts of the scale benchmark: one of each kind is made of
// words that occur in a large share of all chunks, which is what makes a
// full-text query slow on a big archive.
var (
	scalePrompts = []struct{ name, prompt string }{
		{"UserPromptSubmit recall", "which command made the failing test pass again?"},
		{"UserPromptSubmit recall, common words", "can you check the error in the test file and run the build again, then fix it"},
	}
	scaleQueries = []struct{ name, query string }{
		{"search", "test failure error fix"},
		{"search, common words", "the file to run and the test with go"},
		{"search, long query", "why did the migration fail with a constraint error when we ran the tests on the store package last time"},
	}
)

// ScaleOptions configure Scale.
type ScaleOptions struct {
	Plan ScalePlan
	// Dir holds the generated store (default: a temporary directory).
	Dir string
	// Keep keeps the store, and measures an existing one again without
	// generating it.
	Keep        bool
	Transcripts string // transcripts whose chunks give the vocabulary
	// DatabaseURL, when set, puts the archive on this PostgreSQL server
	// (the configured team store) instead of a generated SQLite file, and
	// the hooks and searches measured read it there. The database must
	// hold no session (a throwaway one): the generated sessions stay, and
	// with Keep a database holding sessions is measured again as it is.
	DatabaseURL string
	Owner, Team string // the server's row identity (config's owner and team)
	Workers     int    // sessions generated and applied at once
	Runs        int    // runs per measurement
	Exe         string // the binary measured
	CPUProfile  string // a CPU profile of the generation goes here
	Log         io.Writer
}

// Scale generates an archive of real transcripts' text through
// Store.Apply and measures the recall hook and `carryover search` on it,
// in whole processes of opt.Exe.
func Scale(ctx context.Context, opt ScaleOptions) (*ScaleResult, error) {
	plan := opt.Plan
	if plan.Chunks < 1 || plan.PerSession < 2 || plan.Projects < 1 || plan.Batch < 1 || opt.Workers < 1 || opt.Runs < 1 {
		return nil, fmt.Errorf("bench scale: chunks, projects, batch, workers and runs must be positive, per-session at least 2")
	}
	var err error
	if opt.Exe, err = thisOr(opt.Exe); err != nil {
		return nil, err
	}
	voc, err := loadVocabulary(opt.Transcripts)
	if err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format, args...)
		}
	}

	tmp, err := os.MkdirTemp("", "carryover-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	storeDir := opt.Dir
	if storeDir == "" {
		storeDir = filepath.Join(tmp, "store")
	}
	_, statErr := os.Stat(storeDir)
	if err := os.MkdirAll(storeDir, 0o700); err != nil {
		return nil, err
	}
	db := filepath.Join(storeDir, fmt.Sprintf("scale-%d.db", plan.Chunks))
	if opt.Keep && opt.DatabaseURL == "" {
		logf("carryover: store kept at %s\n", db)
	} else {
		// Only what this run created goes: Dir may hold other files.
		defer func() {
			removeStore(db)
			if os.IsNotExist(statErr) {
				os.Remove(storeDir)
			}
		}()
	}
	reuse := opt.Keep && fileSize(db) > 0
	if opt.DatabaseURL != "" {
		// The SQLite file is then the hooks' local spool, which must stay
		// empty: it fills only when a hook falls back from the server.
		db = filepath.Join(tmp, "spool.db")
		if reuse, err = serverHoldsSessions(ctx, opt); err != nil {
			return nil, err
		}
		if reuse && !opt.Keep {
			return nil, fmt.Errorf("bench scale: the server at %s holds sessions already: "+
				"give it an empty, throwaway database (or --keep to measure what it holds)", storeopen.RedactURL(opt.DatabaseURL))
		}
	}

	res := &ScaleResult{Store: "sqlite", Chunks: plan.Chunks, Sessions: plan.sessions(), Projects: min(plan.Projects, plan.sessions()),
		Vocabulary: len(voc.lines), Runs: opt.Runs}
	target := storeopen.Config{DB: db, DatabaseURL: opt.DatabaseURL, Owner: opt.Owner, Team: opt.Team}
	if opt.DatabaseURL != "" {
		res.Store = "postgresql"
	}
	if reuse {
		logf("carryover: reusing %s (ingest not measured)\n", storeName(target))
	} else {
		removeStore(db)
		if opt.CPUProfile != "" {
			f, err := os.Create(opt.CPUProfile)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		if err := generateArchive(ctx, target, voc, plan, opt.Workers); err != nil {
			return nil, err
		}
		res.IngestS = time.Since(start).Seconds()
		pprof.StopCPUProfile()
		res.ChunksPerS = float64(plan.Chunks) / res.IngestS
	}
	res.StoreMB = float64(fileSize(db)+fileSize(db+"-wal")) / (1 << 20)
	if opt.DatabaseURL != "" {
		if res.StoreMB, err = serverMB(ctx, target); err != nil {
			return nil, err
		}
	}
	if res.Measurements, err = measureScaleChild(ctx, opt.Exe, db, opt.DatabaseURL, plan, opt.Runs, opt.Log); err != nil {
		return nil, err
	}
	return res, nil
}

// Print writes what Scale measured.
func (r *ScaleResult) Print(w io.Writer) error {
	fmt.Fprintf(w, "scale: %d chunks in %d sessions of %d projects on %s (vocabulary: %d lines of real chunks)\n",
		r.Chunks, r.Sessions, r.Projects, r.Store, r.Vocabulary)
	fmt.Fprintf(w, "ingest through Store.Apply (with vectors): %.1f s, %.0f chunks/s; store %.1f MB\n\n",
		r.IngestS, r.ChunksPerS, r.StoreMB)
	fmt.Fprintf(w, "whole-process latency, %d runs each (median / p90 / max RSS)\n\n", r.Runs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measurement\tmedian\tp90\tRSS\t")
	for _, row := range r.Measurements {
		fmt.Fprintf(tw, "%s\t%.1f ms\t%.1f ms\t%.1f MB\t%s\n", row.Name, row.MedianMS, row.P90MS, row.MaxRSSMB, row.Note)
	}
	return tw.Flush()
}

// measureScaleChild measures in a child process (bench scale
// --measure-db, which calls MeasureScale): a process's maximum RSS starts
// at its parent's peak when the parent execs it (Linux carries the
// high-water mark across exec), and this process's peak, after generating
// the archive, is not the hook's. The child is the measured binary itself.
// With a server (dsn), the child and the processes it measures get its
// URL from the environment, not from their command lines.
func measureScaleChild(ctx context.Context, exe, db, dsn string, plan ScalePlan, runs int, stderr io.Writer) ([]LatencyRow, error) {
	args := []string{"bench", "scale", "--measure-db", db, "--exe", exe,
		"--chunks", strconv.Itoa(plan.Chunks), "--per-session", strconv.Itoa(plan.PerSession),
		"--projects", strconv.Itoa(plan.Projects), "--runs", strconv.Itoa(runs)}
	if dsn != "" {
		args = append(args, "--measure-server")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	if dsn != "" {
		cmd.Env = append(os.Environ(), "CARRYOVER_DATABASE_URL="+dsn)
	}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("bench scale: measure: %w", err)
	}
	var rows []LatencyRow
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, fmt.Errorf("bench scale: measure: %w", err)
	}
	return rows, nil
}

// MeasureScale runs the recall hook and searches over the generated store
// db, whole processes of exe. With server, they read the server that
// CARRYOVER_DATABASE_URL names, and db is the hooks' local spool: a hook
// that fell back to it would time the wrong store, so that is an error.
func MeasureScale(exe, db string, server bool, plan ScalePlan, runs int) ([]LatencyRow, error) {
	exe, err := thisOr(exe)
	if err != nil {
		return nil, err
	}
	if !server {
		// In a process of its own: this one's peak memory is every
		// measured process's starting peak (see measureScaleChild).
		cmd := exec.Command(exe, "bench", "scale", "--catch-up-db", db)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("bench scale: catch the store up: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "carryover-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b := &latencyBench{exes: []string{exe}, tmp: tmp, runs: runs}
	version, err := b.measure(measurement{name: "version", argv: func(int, int) []string { return []string{"version"} }})
	if err != nil {
		return nil, err
	}
	rows := []LatencyRow{version}
	for _, p := range scalePrompts {
		// Each run is the first prompt after the compaction of another
		// session: a session's later prompts skip what was injected already.
		row, err := b.measure(measurement{
			name: p.name,
			argv: func(int, int) []string { return []string{"--db", db, "hook", "user-prompt-submit"} },
			stdin: func(i int) []byte {
				s := (i + 1) % plan.sessions()
				payload, _ := json.Marshal(map[string]string{
					"session_id": plan.sessionID(s), "transcript_path": filepath.Join(tmp, plan.sessionID(s)+".jsonl"),
					"cwd": plan.project(s), "hook_event_name": "UserPromptSubmit", "prompt": p.prompt,
				})
				return payload
			},
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	for _, q := range scaleQueries {
		argv := []string{"--db", db, "search", q.query, "--json"}
		if server {
			argv = argv[2:] // --db would choose the SQLite file
		}
		row, err := b.measure(measurement{name: q.name, argv: func(int, int) []string { return argv }})
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if server && fileSize(db) > 0 {
		return nil, fmt.Errorf("bench scale: a hook fell back to the local store %s: the server was not measured (see the log)", db)
	}
	for i := range rows[1:] {
		r := &rows[i+1]
		r.Note = fmt.Sprintf("%.1f× version", r.MedianMS/rows[0].MedianMS)
	}
	return rows, nil
}

// CatchUp brings a store kept from an older carryover up to this one, as
// 'carryover ingest' does (and the hooks' next batches would): its
// migration, then what Backfill adds to older chunks, such as the spans
// of their projects. Without it, a kept store is measured as it never is
// for long.
func CatchUp(db string) error {
	ctx := context.Background()
	st, err := storeopen.Local(ctx, db, storeopen.LocalOptions{BusyTimeout: time.Minute})
	if err != nil {
		return fmt.Errorf("bench scale: %w", err)
	}
	_, err = ingest.Backfill(ctx, st, storeopen.BackfillBatch*16)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench scale: %w", err)
	}
	return nil
}

// serverHoldsSessions reports whether the server opt.DatabaseURL names
// holds any session.
func serverHoldsSessions(ctx context.Context, opt ScaleOptions) (bool, error) {
	st, err := storeopen.Server(ctx, opt.DatabaseURL, storeopen.ServerOptions{ConnectTimeout: 5 * time.Second, Owner: opt.Owner, Team: opt.Team})
	if err != nil {
		return false, fmt.Errorf("bench scale: %w", err)
	}
	defer st.Close()
	ss, err := st.Sessions(ctx, carryover.SessionFilter{Limit: 1})
	if err != nil {
		return false, fmt.Errorf("bench scale: %w", err)
	}
	return len(ss) > 0, nil
}

// serverMB is the size of the server's archive (its tables and indexes).
func serverMB(ctx context.Context, target storeopen.Config) (float64, error) {
	st, err := storeopen.Open(ctx, target, 5*time.Second, storeopen.LocalOptions{})
	if err != nil {
		return 0, fmt.Errorf("bench scale: %w", err)
	}
	defer st.Close()
	n, err := st.Size(ctx)
	if err != nil {
		return 0, fmt.Errorf("bench scale: %w", err)
	}
	return float64(n) / (1 << 20), nil
}

// storeName names the store for messages, a server's password masked.
func storeName(target storeopen.Config) string {
	if target.DatabaseURL != "" {
		return storeopen.RedactURL(target.DatabaseURL)
	}
	return target.DB
}

// vocabulary is what generated chunks are made of: real chunks' lines,
// words, prompts, files, commands and errors.
type vocabulary struct {
	lines, words, prompts, files, commands, errors []string
}

// loadVocabulary chunks every transcript in dir the way ingest does.
func loadVocabulary(dir string) (*vocabulary, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		return nil, fmt.Errorf("bench scale: no transcripts in %s", dir)
	}
	sort.Strings(files)
	sets := make([]map[string]bool, 6)
	for i := range sets {
		sets[i] = map[string]bool{}
	}
	for _, f := range files {
		res, err := chunkFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range res.Chunks {
			for l := range strings.SplitSeq(c.Text, "\n") {
				if l = strings.TrimSpace(l); len(l) >= 8 && len(l) <= 400 {
					sets[0][l] = true
				}
				for _, w := range strings.Fields(l) {
					if len(w) <= 40 {
						sets[1][w] = true
					}
				}
			}
			if c.Prompt != "" {
				sets[2][c.Prompt] = true
			}
			for i, l := range [][]string{c.Files, c.Commands, c.Errors} {
				for _, x := range l {
					sets[3+i][x] = true
				}
			}
		}
	}
	list := func(m map[string]bool) []string {
		l := make([]string, 0, len(m))
		for k := range m {
			l = append(l, k)
		}
		sort.Strings(l) // deterministic generation
		return l
	}
	v := &vocabulary{list(sets[0]), list(sets[1]), list(sets[2]), list(sets[3]), list(sets[4]), list(sets[5])}
	if len(v.lines) == 0 || len(v.words) == 0 {
		return nil, errors.New("bench scale: the transcripts hold no text")
	}
	return v, nil
}

func chunkFile(path string) (chunk.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return chunk.Result{}, fmt.Errorf("bench scale: %w", err)
	}
	defer f.Close()
	r := transcript.NewReader(f, 0, 0)
	var entries []transcript.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return chunk.Result{}, fmt.Errorf("bench scale %s: %w", path, err)
		}
		entries = append(entries, e)
	}
	sid := ingest.SessionIDFromPath(path)
	return chunk.Build(sid, filepath.Dir(path), entries, chunk.NewCursor(), chunk.Options{}), nil
}

// ScalePlan lays out the generated archive: sessions of PerSession chunks
// (the last may be shorter), spread round-robin over Projects, each
// compacted once half-way, written Batch chunks per Apply.
type ScalePlan struct {
	Chunks, PerSession, Projects, Batch int
}

func (p ScalePlan) sessions() int { return (p.Chunks + p.PerSession - 1) / p.PerSession }

func (p ScalePlan) sessionID(i int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "scale-session-%d", i))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func (p ScalePlan) project(session int) string {
	return fmt.Sprintf("/home/dev/src/project-%d", session%p.Projects)
}

// generateArchive writes the planned sessions through Store.Apply, workers
// sessions at a time, to the target store: Apply embeds before it takes the
// write lock, so the embedding of one batch overlaps another's write.
func generateArchive(ctx context.Context, target storeopen.Config, voc *vocabulary, plan ScalePlan, workers int) error {
	st, err := storeopen.Open(ctx, target, 5*time.Second, storeopen.LocalOptions{BusyTimeout: time.Minute})
	if err != nil {
		return err
	}
	next := make(chan int)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for s := range next {
				if err := generateSession(ctx, st, voc, plan, s); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	var genErr error
feed:
	for s := range plan.sessions() {
		select {
		case next <- s:
		case genErr = <-errc:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if genErr == nil {
		select {
		case genErr = <-errc:
		default:
		}
	}
	if err := st.Close(); genErr == nil {
		genErr = err
	}
	return genErr
}

// generateSession writes session s in batches of plan.Batch chunks.
func generateSession(ctx context.Context, st carryover.Store, voc *vocabulary, plan ScalePlan, s int) error {
	rng := rand.New(rand.NewPCG(uint64(s), 0x5ca1e))
	n := min(plan.PerSession, plan.Chunks-s*plan.PerSession)
	sid, project := plan.sessionID(s), plan.project(s)
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(s) * 3 * time.Hour)
	half := n / 2
	sess := carryover.Session{
		ID: sid, Project: project, TranscriptPath: filepath.Join(project, sid+".jsonl"), Version: "2.1.197",
		Title: pick(rng, voc.prompts, "a generated session"), Started: base, Windows: 1,
	}
	turn, turnLeft, prompt := -1, 0, ""
	var b carryover.Batch
	var offset int64
	for seq := range n {
		if turnLeft == 0 {
			turn++
			turnLeft = 10 + rng.IntN(40)
			prompt = pick(rng, voc.prompts, "continue")
		}
		turnLeft--
		win := 0
		if seq >= half {
			win = 1
		}
		c := genChunk(rng, voc, sid, project, seq, turn, win, base.Add(time.Duration(seq)*15*time.Second), prompt)
		b.Chunks = append(b.Chunks, c)
		for _, cmd := range c.Commands {
			b.Items = append(b.Items, carryover.Item{SessionID: sid, ChunkSeq: seq, Kind: carryover.KindCommand, Text: cmd,
				Key: chunk.Key(carryover.KindCommand, cmd), Turn: turn, Window: win, Line: c.FirstLine, Time: c.Start, Weight: 1})
		}
		for _, f := range c.Files {
			b.Items = append(b.Items, carryover.Item{SessionID: sid, ChunkSeq: seq, Kind: carryover.KindFileEdit, Text: f,
				Key: chunk.Key(carryover.KindFileEdit, f), Turn: turn, Window: win, Line: c.FirstLine, Time: c.Start, Weight: 1})
		}
		if seq == half {
			b.Compactions = append(b.Compactions, carryover.Compaction{SessionID: sid, Window: 1, Trigger: "auto",
				PreTokens: 160000, PostTokens: 9000, Line: c.FirstLine - 1, Time: c.Start,
				Summary: "This session is being continued from a previous conversation.\n" + genText(rng, voc, 1500)})
		}
		b.Raw = append(b.Raw, genRaw(rng, voc, c, &offset)...)
		if len(b.Chunks) == plan.Batch || seq == n-1 {
			sess.Updated, sess.Turns = c.End, turn+1
			b.Session = sess
			b.State = carryover.IngestState{SessionID: sid, Path: sess.TranscriptPath, FileID: "generated", Line: c.LastLine, Offset: offset}
			if err := st.Apply(ctx, b); err != nil {
				return fmt.Errorf("bench scale: session %d: %w", s, err)
			}
			b = carryover.Batch{}
		}
	}
	return nil
}

// genChunk makes a chunk of about 1,000 characters of real lines, with some
// lines recombined from real words, and real files, commands and errors.
func genChunk(rng *rand.Rand, voc *vocabulary, sid, project string, seq, turn, win int, at time.Time, prompt string) carryover.Chunk {
	text := genText(rng, voc, 600+rng.IntN(900))
	c := carryover.Chunk{
		SessionID: sid, Project: project, Seq: seq, Turn: turn, Window: win,
		FirstLine: 8*seq + 1, LastLine: 8*seq + 8, Start: at, End: at.Add(12 * time.Second),
		Prompt: prompt, Text: text,
	}
	c.Summary, _, _ = strings.Cut(text, "\n")
	if len(c.Summary) > 300 {
		c.Summary = strings.ToValidUTF8(c.Summary[:300], "")
	}
	for range rng.IntN(3) {
		c.Files = appendNew(c.Files, pick(rng, voc.files, ""))
	}
	for range rng.IntN(3) {
		c.Commands = appendNew(c.Commands, pick(rng, voc.commands, ""))
	}
	if rng.IntN(8) == 0 {
		c.Errors = appendNew(c.Errors, pick(rng, voc.errors, ""))
	}
	if len(c.Commands) > 0 {
		c.Tools = append(c.Tools, "Bash")
	}
	if len(c.Files) > 0 {
		c.Tools = append(c.Tools, "Edit")
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s", sid, seq, text))
	c.Hash = hex.EncodeToString(h[:16])
	return c
}

// genRaw makes the chunk's transcript lines as a real ingest stores them
// (raw lines, masked JSON, and so passages): the assistant's text, the
// tool result the chunk shortened, whole (the chunk's text and as much
// again), and six lines without message text (progress, system, a tool
// call).
func genRaw(rng *rand.Rand, voc *vocabulary, c carryover.Chunk, offset *int64) []carryover.RawLine {
	msg := func(typ string, content any) []byte {
		b, _ := json.Marshal(map[string]any{"type": typ, "sessionId": c.SessionID, "timestamp": c.Start.Format(time.RFC3339Nano),
			"message": map[string]any{"role": typ, "content": content}})
		return b
	}
	texts := [][]byte{
		msg("assistant", []any{map[string]any{"type": "text", "text": c.Summary}}),
		msg("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_gen", "content": c.Text + "\n" + genText(rng, voc, len(c.Text))}}),
	}
	out := make([]carryover.RawLine, 0, c.LastLine-c.FirstLine+1)
	for l := c.FirstLine; l <= c.LastLine; l++ {
		var text []byte
		if i := l - c.FirstLine; i < len(texts) {
			text = texts[i]
		} else {
			text = fmt.Appendf(nil, `{"type":"progress","sessionId":%q,"data":{"type":"hook_progress","line":%d}}`, c.SessionID, l)
		}
		out = append(out, carryover.RawLine{Line: l, Offset: *offset, Size: len(text) + 1, Text: text})
		*offset += int64(len(text) + 1)
	}
	return out
}

func genText(rng *rand.Rand, voc *vocabulary, size int) string {
	var b strings.Builder
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if rng.IntN(10) < 7 {
			b.WriteString(voc.lines[rng.IntN(len(voc.lines))])
			continue
		}
		for i := range 4 + rng.IntN(12) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(voc.words[rng.IntN(len(voc.words))])
		}
	}
	return b.String()
}

func pick(rng *rand.Rand, l []string, def string) string {
	if len(l) == 0 {
		return def
	}
	return l[rng.IntN(len(l))]
}

func appendNew(l []string, s string) []string {
	if s == "" || slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}
