package exportfile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/redact"
)

// WriteOptions select what Write exports.
type WriteOptions struct {
	// Sessions are exported in this order (oldest first reads best).
	Sessions []carryover.Session
	// Orphans adds the audit records and notes of sessions not exported
	// (of Project when set): those of sessions never archived.
	Orphans bool
	Project string
	// Redactor masks secrets again on the way out; nil means the built-in
	// detectors alone.
	Redactor *redact.Redactor
	// Carryover is the exporting version, recorded in the header.
	Carryover string
	// Progress, when set, is called after each session.
	Progress func(done int)
}

// Counts says what was written (or read).
type Counts struct {
	Sessions, Chunks, Items, Compactions, Injections, Notes int
	RawLines                                                int
	// Masked counts the secrets masked, by kind.
	Masked map[string]int
}

// Write writes an export of st to w.
func Write(ctx context.Context, w io.Writer, st carryover.Store, opt WriteOptions) (Counts, error) {
	e := &writer{st: st, enc: json.NewEncoder(w), r: opt.Redactor}
	e.n.Masked = map[string]int{}
	if e.r == nil {
		e.r = redact.New(redact.Options{})
	}
	e.enc.SetEscapeHTML(false)
	if err := e.enc.Encode(Header{Type: "header", Format: Format, Version: Version,
		Created: time.Now().UTC(), Carryover: opt.Carryover, Redacted: true}); err != nil {
		return e.n, err
	}
	done := map[string]bool{}
	for i, s := range opt.Sessions {
		if err := e.session(ctx, s); err != nil {
			return e.n, fmt.Errorf("session %s: %w", s.ID, err)
		}
		done[s.ID] = true
		e.n.Sessions++
		if opt.Progress != nil {
			opt.Progress(i + 1)
		}
	}
	if opt.Orphans {
		if err := e.orphans(ctx, opt.Project, done); err != nil {
			return e.n, err
		}
	}
	return e.n, nil
}

type writer struct {
	st  carryover.Store
	enc *json.Encoder
	n   Counts
	r   *redact.Redactor
}

// red redacts a text and counts what it masked.
func (e *writer) red(s string) string {
	out, counts := e.r.Redact(s)
	for k, n := range counts {
		e.n.Masked[k] += n
	}
	return out
}

func (e *writer) reds(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = e.red(s)
	}
	return out
}

func (e *writer) session(ctx context.Context, s carryover.Session) error {
	rec := SessionRecord{Type: "session", ID: s.ID, Parent: s.Parent, Project: s.Project, Cwd: e.red(s.Cwd), Branch: e.red(s.Branch),
		TranscriptPath: s.TranscriptPath, Version: e.red(s.Version), Title: e.red(s.Title), Started: s.Started, Updated: s.Updated, Windows: s.Windows,
		Turns: s.Turns, Owner: s.Owner, Team: s.Team}
	if is, err := e.st.IngestState(ctx, s.ID); err == nil {
		rec.Ingest = &Ingest{Path: is.Path, FileID: is.FileID, Offset: is.Offset, Line: is.Line, Cursor: is.Cursor}
	}
	if err := e.enc.Encode(rec); err != nil {
		return err
	}
	chunks, err := e.st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if err := e.enc.Encode(ChunkRecord{Type: "chunk", ID: c.ID, Session: s.ID, Seq: c.Seq, Turn: c.Turn,
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
		if err := e.enc.Encode(ItemRecord{Type: "item", ID: it.ID, Session: s.ID, ChunkSeq: it.ChunkSeq,
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
		if err := e.enc.Encode(CompactionRecord{Type: "compaction", Session: s.ID, Window: c.Window, Trigger: c.Trigger,
			PreTokens: c.PreTokens, PostTokens: c.PostTokens, Line: c.Line, Time: c.Time, Summary: e.red(c.Summary)}); err != nil {
			return err
		}
		e.n.Compactions++
	}
	if err := e.raw(ctx, s.ID); err != nil {
		return err
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

// rawPage is how many raw lines one read of the store returns: a
// session's archive is read a stretch at a time, not held whole.
const rawPage = 1000

// raw writes the session's raw lines, masked again.
func (e *writer) raw(ctx context.Context, session string) error {
	first, last, err := e.st.RawRange(ctx, session)
	if err != nil || last == 0 {
		return err
	}
	for from := first; from <= last; from += rawPage {
		lines, err := e.st.RawLines(ctx, session, from, min(from+rawPage-1, last))
		if err != nil {
			return err
		}
		for _, l := range lines {
			text, counts := e.r.RedactJSON(l.Text)
			for k, n := range counts {
				e.n.Masked[k] += n
			}
			rec := RawRecord{Type: "raw", Session: session, Line: l.Line, Offset: l.Offset, Size: l.Size}
			if utf8.Valid(text) {
				rec.Text = string(text)
			} else {
				rec.Data = text
			}
			if err := e.enc.Encode(rec); err != nil {
				return err
			}
			e.n.RawLines++
		}
	}
	return nil
}

// orphans writes the injections and notes of sessions not in done (of the
// project, when one is given).
func (e *writer) orphans(ctx context.Context, project string, done map[string]bool) error {
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

func (e *writer) injections(ins []carryover.Injection) error {
	// The store lists them newest first; the file keeps time order.
	for i := len(ins) - 1; i >= 0; i-- {
		in := ins[i]
		if err := e.enc.Encode(InjectionRecord{Type: "injection", Time: in.Time, Session: in.SessionID,
			Project: in.Project, Event: in.Event, Window: in.Window, Chars: in.Chars, Tokens: in.Tokens,
			ChunkIDs: in.ChunkIDs, ItemIDs: in.ItemIDs, Hash: in.Hash, LatencyUS: in.Latency.Microseconds(),
			Text: e.red(in.Text), Reason: e.red(in.Reason)}); err != nil {
			return err
		}
		e.n.Injections++
	}
	return nil
}

func (e *writer) notes(notes []carryover.Note) error {
	for _, n := range notes {
		if err := e.enc.Encode(NoteRecord{Type: "note", Time: n.Time, Session: n.SessionID, Project: n.Project,
			Kind: n.Kind, Text: e.red(n.Text)}); err != nil {
			return err
		}
		e.n.Notes++
	}
	return nil
}
