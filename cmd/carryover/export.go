package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/redact"
)

// The export format: JSON Lines, one record per line, each with a "type".
// The first line is the header; then, per session, its session record,
// chunks, items, compactions, injections and notes; then audit records and
// notes of sessions that were never archived. Ids are the exporting
// store's: import maps them to its own.
const (
	exportFormat  = "carryover-export"
	exportVersion = 1
)

type exportHeader struct {
	Type      string    `json:"type"` // "header"
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Created   time.Time `json:"created"`
	Carryover string    `json:"carryover"`
	// Redacted says whether secrets were masked (always, since format 1).
	Redacted bool `json:"redacted"`
}

type exportIngest struct {
	Path   string `json:"path"`
	FileID string `json:"file_id"`
	Offset int64  `json:"offset"`
	Line   int    `json:"line"`
	Cursor []byte `json:"cursor,omitempty"`
}

type exportSession struct {
	Type           string        `json:"type"` // "session"
	ID             string        `json:"id"`
	Project        string        `json:"project"`
	TranscriptPath string        `json:"transcript_path,omitempty"`
	Version        string        `json:"version,omitempty"`
	Title          string        `json:"title,omitempty"`
	Started        time.Time     `json:"started"`
	Updated        time.Time     `json:"updated"`
	Windows        int           `json:"windows"`
	Turns          int           `json:"turns"`
	Owner          string        `json:"owner,omitempty"`
	Team           string        `json:"team,omitempty"`
	Ingest         *exportIngest `json:"ingest,omitempty"`
}

type exportChunk struct {
	Type      string    `json:"type"` // "chunk"
	ID        int64     `json:"id"`
	Session   string    `json:"session"`
	Seq       int       `json:"seq"`
	Turn      int       `json:"turn"`
	Window    int       `json:"window"`
	FirstLine int       `json:"first_line"`
	LastLine  int       `json:"last_line"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Prompt    string    `json:"prompt"`
	Summary   string    `json:"summary"`
	Text      string    `json:"text"`
	Tools     []string  `json:"tools,omitempty"`
	Files     []string  `json:"files,omitempty"`
	Commands  []string  `json:"commands,omitempty"`
	Errors    []string  `json:"errors,omitempty"`
	Sidechain bool      `json:"sidechain,omitempty"`
	AgentID   string    `json:"agent_id,omitempty"`
	Hash      string    `json:"hash"`
}

type exportItem struct {
	Type     string    `json:"type"` // "item"
	ID       int64     `json:"id"`
	Session  string    `json:"session"`
	ChunkSeq int       `json:"chunk_seq"`
	Kind     string    `json:"kind"`
	Text     string    `json:"text"`
	Detail   string    `json:"detail,omitempty"`
	Key      string    `json:"key"`
	Turn     int       `json:"turn"`
	Window   int       `json:"window"`
	Line     int       `json:"line"`
	Time     time.Time `json:"time"`
	Weight   float64   `json:"weight"`
	Resolved bool      `json:"resolved,omitempty"`
	Count    int       `json:"count"`
}

type exportCompaction struct {
	Type       string    `json:"type"` // "compaction"
	Session    string    `json:"session"`
	Window     int       `json:"window"`
	Trigger    string    `json:"trigger"`
	PreTokens  int       `json:"pre_tokens"`
	PostTokens int       `json:"post_tokens"`
	Line       int       `json:"line"`
	Time       time.Time `json:"time"`
	Summary    string    `json:"summary,omitempty"`
}

type exportInjection struct {
	Type      string    `json:"type"` // "injection"
	Time      time.Time `json:"time"`
	Session   string    `json:"session"`
	Project   string    `json:"project"`
	Event     string    `json:"event"`
	Window    int       `json:"window"`
	Chars     int       `json:"chars"`
	Tokens    int       `json:"tokens"`
	ChunkIDs  []int64   `json:"chunk_ids,omitempty"`
	ItemIDs   []int64   `json:"item_ids,omitempty"`
	Hash      string    `json:"hash"`
	LatencyUS int64     `json:"latency_us"`
}

type exportNote struct {
	Type    string    `json:"type"` // "note"
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Project string    `json:"project"`
	Kind    string    `json:"kind"`
	Text    string    `json:"text"`
}

func (a *app) cmdExport(ctx context.Context, args []string) error {
	fl := a.newFlags("export")
	project := fl.String("project", "", "only sessions of this project directory (\".\" for the current one)")
	session := fl.String("session", "", "only this session (id or unique prefix)")
	output := fl.String("o", "", "write to FILE (default: standard output)")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{fmt.Sprintf("export: unexpected argument %q", pos[0])}
	}
	if *project != "" {
		if *project, err = filepath.Abs(*project); err != nil {
			return err
		}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	var sessions []carryover.Session
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		sessions = []carryover.Session{s}
	} else if sessions, err = st.Sessions(ctx, carryover.SessionFilter{Project: *project}); err != nil {
		return err
	}
	// Oldest first: a reader sees sessions in the order they happened.
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Started.Before(sessions[j].Started) })

	out := a.stdout
	var f *os.File
	if *output != "" && *output != "-" {
		// Written beside the target and renamed, so a failed export never
		// leaves half a file under the name.
		f, err = os.CreateTemp(filepath.Dir(*output), ".carryover-export-*")
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer func() {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}()
		out = f
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	e := &exporter{st: st, enc: json.NewEncoder(bw), masked: map[string]int{}, r: a.redactor}
	e.enc.SetEscapeHTML(false)
	if err := e.enc.Encode(exportHeader{Type: "header", Format: exportFormat, Version: exportVersion,
		Created: time.Now().UTC(), Carryover: versionString(), Redacted: true}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	bar := progress.New(a.stderr, int64(len(sessions)), "export")
	done := map[string]bool{}
	for _, s := range sessions {
		if err := e.session(ctx, s); err != nil {
			bar.Done()
			return fmt.Errorf("export %s: %w", s.ID, err)
		}
		done[s.ID] = true
		bar.Add(1)
	}
	bar.Done()
	// Audit records and notes whose session was never archived.
	if *session == "" {
		if err := e.orphans(ctx, *project, done); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	} else if len(sessions) == 0 {
		return fmt.Errorf("export: no session %q", *session)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := os.Rename(f.Name(), *output); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		f = nil
	}
	w := a.stderr
	if *output != "" && *output != "-" {
		w = a.stdout
	}
	fmt.Fprintf(w, "exported %s: %d chunks, %d items, %d compactions, %d injections, %d notes\n",
		plural(len(sessions), "session"), e.n.Chunks, e.n.Items, e.n.Compactions, e.n.Injections, e.n.Notes)
	if total := sumCounts(e.masked); total > 0 {
		fmt.Fprintf(w, "masked %s\n", plural(total, "secret"))
	}
	return nil
}

type exporter struct {
	st     carryover.Store
	enc    *json.Encoder
	n      carryover.PruneReport // counts of what was written
	masked map[string]int
	r      *redact.Redactor
}

// red redacts a text and counts what it masked.
func (e *exporter) red(s string) string {
	out, counts := e.r.Redact(s)
	for k, n := range counts {
		e.masked[k] += n
	}
	return out
}

func (e *exporter) reds(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = e.red(s)
	}
	return out
}

func (e *exporter) session(ctx context.Context, s carryover.Session) error {
	rec := exportSession{Type: "session", ID: s.ID, Project: s.Project, TranscriptPath: s.TranscriptPath,
		Version: s.Version, Title: e.red(s.Title), Started: s.Started, Updated: s.Updated, Windows: s.Windows,
		Turns: s.Turns, Owner: s.Owner, Team: s.Team}
	if is, err := e.st.IngestState(ctx, s.ID); err == nil {
		rec.Ingest = &exportIngest{Path: is.Path, FileID: is.FileID, Offset: is.Offset, Line: is.Line, Cursor: is.Cursor}
	}
	if err := e.enc.Encode(rec); err != nil {
		return err
	}
	chunks, err := e.st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if err := e.enc.Encode(exportChunk{Type: "chunk", ID: c.ID, Session: s.ID, Seq: c.Seq, Turn: c.Turn,
			Window: c.Window, FirstLine: c.FirstLine, LastLine: c.LastLine, Start: c.Start, End: c.End,
			Prompt: e.red(c.Prompt), Summary: e.red(c.Summary), Text: e.red(c.Text), Tools: c.Tools,
			Files: e.reds(c.Files), Commands: e.reds(c.Commands), Errors: e.reds(c.Errors),
			Sidechain: c.Sidechain, AgentID: c.AgentID, Hash: c.Hash}); err != nil {
			return err
		}
		e.n.Chunks++
	}
	items, err := e.st.Items(ctx, carryover.ItemFilter{SessionID: s.ID})
	if err != nil {
		return err
	}
	// Oldest line first, so that an import merges them in order.
	sort.Slice(items, func(i, j int) bool {
		x, y := items[i], items[j]
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		return x.Key < y.Key
	})
	for _, it := range items {
		if err := e.enc.Encode(exportItem{Type: "item", ID: it.ID, Session: s.ID, ChunkSeq: it.ChunkSeq,
			Kind: string(it.Kind), Text: e.red(it.Text), Detail: e.red(it.Detail), Key: e.red(it.Key), Turn: it.Turn,
			Window: it.Window, Line: it.Line, Time: it.Time, Weight: it.Weight, Resolved: it.Resolved,
			Count: it.Count}); err != nil {
			return err
		}
		e.n.Items++
	}
	comps, err := e.st.Compactions(ctx, s.ID)
	if err != nil {
		return err
	}
	for _, c := range comps {
		if err := e.enc.Encode(exportCompaction{Type: "compaction", Session: s.ID, Window: c.Window, Trigger: c.Trigger,
			PreTokens: c.PreTokens, PostTokens: c.PostTokens, Line: c.Line, Time: c.Time, Summary: e.red(c.Summary)}); err != nil {
			return err
		}
		e.n.Compactions++
	}
	ins, err := e.st.Injections(ctx, s.ID, 0)
	if err != nil {
		return err
	}
	if err := e.injections(ins); err != nil {
		return err
	}
	notes, err := e.st.Notes(ctx, "", s.ID)
	if err != nil {
		return err
	}
	return e.notes(notes)
}

// orphans writes the injections and notes of sessions not in done (of the
// project, when one is given).
func (e *exporter) orphans(ctx context.Context, project string, done map[string]bool) error {
	ins, err := e.st.Injections(ctx, "", 0)
	if err != nil {
		return err
	}
	var keepIns []carryover.Injection
	for _, in := range ins {
		if !done[in.SessionID] && (project == "" || in.Project == project) {
			keepIns = append(keepIns, in)
		}
	}
	if err := e.injections(keepIns); err != nil {
		return err
	}
	notes, err := e.st.Notes(ctx, project, "")
	if err != nil {
		return err
	}
	var keepNotes []carryover.Note
	for _, n := range notes {
		if !done[n.SessionID] {
			keepNotes = append(keepNotes, n)
		}
	}
	return e.notes(keepNotes)
}

func (e *exporter) injections(ins []carryover.Injection) error {
	// The store lists them newest first; the file keeps time order.
	for i := len(ins) - 1; i >= 0; i-- {
		in := ins[i]
		if err := e.enc.Encode(exportInjection{Type: "injection", Time: in.Time, Session: in.SessionID,
			Project: in.Project, Event: in.Event, Window: in.Window, Chars: in.Chars, Tokens: in.Tokens,
			ChunkIDs: in.ChunkIDs, ItemIDs: in.ItemIDs, Hash: in.Hash, LatencyUS: in.Latency.Microseconds()}); err != nil {
			return err
		}
		e.n.Injections++
	}
	return nil
}

func (e *exporter) notes(notes []carryover.Note) error {
	for _, n := range notes {
		if err := e.enc.Encode(exportNote{Type: "note", Time: n.Time, Session: n.SessionID, Project: n.Project,
			Kind: n.Kind, Text: e.red(n.Text)}); err != nil {
			return err
		}
		e.n.Notes++
	}
	return nil
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
