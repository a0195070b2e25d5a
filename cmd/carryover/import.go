package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/redact"
)

// importBatch bounds the chunks written per transaction.
const importBatch = 500

// maxImportLine caps one record; chunks are a few kilobytes, compaction
// summaries tens.
const maxImportLine = 16 << 20

func (a *app) cmdImport(ctx context.Context, args []string) error {
	fl := a.newFlags("import")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{"import: give one export file ('-' for standard input)"}
	}
	var in io.Reader = a.stdin
	var size int64
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("import: %s is not a regular file", pos[0])
		}
		in, size = f, fi.Size()
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

	bar := progress.New(a.stderr, size, "import")
	im := &importer{st: st, r: a.redactor, chunkIDs: map[int64]chunkRef{}, itemIDs: map[int64]itemRef{}, gone: map[string]bool{}}
	err = im.read(ctx, &countingReader{r: in, bar: bar})
	bar.Done()
	if err != nil {
		return fmt.Errorf("import %s: %w", pos[0], err)
	}
	fmt.Fprintf(a.stdout, "imported %s: %d chunks, %d items, %d compactions read; %d injections and %d notes added (%d already present)\n",
		plural(im.sessions, "session"), im.chunks, im.items, im.compactions, im.newInjections, im.newNotes, im.present)
	if im.skipped > 0 {
		fmt.Fprintf(a.stdout, "skipped %s forgotten in this store (see 'carryover forget --undo')\n", plural(im.skipped, "session"))
	}
	if !im.header.Redacted {
		fmt.Fprintln(a.stdout, "note: the export was not redacted; secrets in it were masked on import")
	}
	return nil
}

type countingReader struct {
	r   io.Reader
	bar *progress.Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.bar.Add(int64(n))
	return n, err
}

type chunkRef struct {
	session string
	seq     int
}

type itemRef struct {
	session, kind, key string
}

type importer struct {
	st     carryover.Store
	r      *redact.Redactor // an export from elsewhere may hold secrets
	header exportHeader
	// The session being read and what of it is not yet applied.
	batch    carryover.Batch
	open     bool
	chunkIDs map[int64]chunkRef // exporting store's chunk id → chunk
	itemIDs  map[int64]itemRef
	// Audit records and notes wait for every chunk and item: they refer to
	// them by id.
	injections []exportInjection
	notes      []exportNote

	sessions, chunks, items, compactions int
	newInjections, newNotes, present     int
	// gone caches whether the store forgot a session; skipped counts the
	// export's sessions left out for it.
	gone    map[string]bool
	skipped int
}

// forgotten reports whether the store forgot the session.
func (im *importer) forgotten(ctx context.Context, id string) (bool, error) {
	gone, ok := im.gone[id]
	if !ok {
		var err error
		if gone, err = im.st.Forgotten(ctx, id); err != nil {
			return false, err
		}
		im.gone[id] = gone
	}
	return gone, nil
}

// skipping reports whether the records of the current session are left
// out: the store forgot it.
func (im *importer) skipping() bool { return im.open && im.gone[im.batch.Session.ID] }

func (im *importer) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 256<<10)
	for line := 1; ; line++ {
		data, err := readLine(br)
		if errors.Is(err, io.EOF) && len(data) == 0 {
			if line == 1 {
				return errors.New("empty file: not a carryover export")
			}
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if err := im.record(ctx, line, data); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := im.flush(ctx); err != nil {
		return err
	}
	return im.audit(ctx)
}

// readLine reads one line without its newline, up to maxImportLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxImportLine {
			return nil, fmt.Errorf("record longer than %d bytes", maxImportLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

func (im *importer) record(ctx context.Context, line int, data []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		if line == 1 {
			return fmt.Errorf("not a carryover export: %w", err)
		}
		return err
	}
	if line == 1 || im.header.Format == "" {
		if head.Type != "header" {
			return errors.New("not a carryover export: the first record is not a header")
		}
		if err := strictUnmarshal(data, &im.header); err != nil {
			return err
		}
		if im.header.Format != exportFormat {
			return fmt.Errorf("not a carryover export: format %q", im.header.Format)
		}
		if im.header.Version < 1 || im.header.Version > exportVersion {
			return hintErr{fmt.Errorf("export format version %d, this carryover reads 1 to %d", im.header.Version, exportVersion),
				"import it with the carryover that wrote it, or a newer one"}
		}
		return nil
	}
	if im.r != nil {
		data, _ = im.r.RedactJSON(data)
	}
	switch head.Type {
	case "session":
		var s exportSession
		if err := strictUnmarshal(data, &s); err != nil {
			return err
		}
		return im.session(ctx, s)
	case "chunk":
		var c exportChunk
		if err := strictUnmarshal(data, &c); err != nil {
			return err
		}
		if err := im.belongs(c.Session); err != nil || im.skipping() {
			return err
		}
		if c.Hash == "" {
			return fmt.Errorf("chunk %d has no hash", c.Seq)
		}
		im.batch.Chunks = append(im.batch.Chunks, carryover.Chunk{SessionID: c.Session, Project: im.batch.Session.Project,
			Seq: c.Seq, Turn: c.Turn, Window: c.Window, FirstLine: c.FirstLine, LastLine: c.LastLine, Start: c.Start,
			End: c.End, Prompt: c.Prompt, Summary: c.Summary, Text: c.Text, Tools: c.Tools, Files: c.Files,
			Commands: c.Commands, Errors: c.Errors, Sidechain: c.Sidechain, AgentID: c.AgentID, Hash: c.Hash})
		im.chunkIDs[c.ID] = chunkRef{c.Session, c.Seq}
		im.chunks++
		if len(im.batch.Chunks) >= importBatch {
			return im.flush(ctx)
		}
	case "item":
		var it exportItem
		if err := strictUnmarshal(data, &it); err != nil {
			return err
		}
		if err := im.belongs(it.Session); err != nil || im.skipping() {
			return err
		}
		if it.Kind == "" || it.Key == "" {
			return errors.New("item without kind or key")
		}
		im.batch.Items = append(im.batch.Items, carryover.Item{SessionID: it.Session, ChunkSeq: it.ChunkSeq,
			Kind: carryover.ItemKind(it.Kind), Text: it.Text, Detail: it.Detail, Key: it.Key, Turn: it.Turn,
			Window: it.Window, Line: it.Line, Time: it.Time, Weight: it.Weight, Resolved: it.Resolved, Count: it.Count})
		im.itemIDs[it.ID] = itemRef{it.Session, it.Kind, it.Key}
		im.items++
	case "compaction":
		var c exportCompaction
		if err := strictUnmarshal(data, &c); err != nil {
			return err
		}
		if err := im.belongs(c.Session); err != nil || im.skipping() {
			return err
		}
		im.batch.Compactions = append(im.batch.Compactions, carryover.Compaction{SessionID: c.Session, Window: c.Window,
			Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens, Line: c.Line, Time: c.Time, Summary: c.Summary})
		im.compactions++
	case "injection":
		var in exportInjection
		if err := strictUnmarshal(data, &in); err != nil {
			return err
		}
		if err := validSessionID(in.Session); err != nil {
			return err
		}
		im.injections = append(im.injections, in)
	case "note":
		var n exportNote
		if err := strictUnmarshal(data, &n); err != nil {
			return err
		}
		if err := validSessionID(n.Session); err != nil {
			return err
		}
		im.notes = append(im.notes, n)
	case "header":
		return errors.New("a second header")
	default:
		return fmt.Errorf("unknown record type %q", head.Type)
	}
	return nil
}

// strictUnmarshal decodes one record, refusing fields this version does not
// know: a version 1 file has none.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func (im *importer) belongs(session string) error {
	if !im.open {
		return errors.New("record before its session record")
	}
	if session != im.batch.Session.ID {
		return fmt.Errorf("record of session %q inside session %q", session, im.batch.Session.ID)
	}
	return nil
}

// session starts a session: what was read of the previous one is applied.
// A session the store already has keeps its ingest state when that is
// further along, so that an old export never rewinds a live session.
func (im *importer) session(ctx context.Context, s exportSession) error {
	if err := im.flush(ctx); err != nil {
		return err
	}
	if err := validSessionID(s.ID); err != nil {
		return err
	}
	im.batch, im.open = carryover.Batch{Session: carryover.Session{ID: s.ID}}, true
	if gone, err := im.forgotten(ctx, s.ID); err != nil {
		return err
	} else if gone {
		im.skipped++
		return nil
	}
	b := carryover.Batch{Session: carryover.Session{ID: s.ID, Project: s.Project, TranscriptPath: s.TranscriptPath,
		Version: s.Version, Title: s.Title, Started: s.Started, Updated: s.Updated, Windows: s.Windows, Turns: s.Turns,
		Owner: s.Owner, Team: s.Team}}
	if s.Ingest != nil {
		b.State = carryover.IngestState{SessionID: s.ID, Path: s.Ingest.Path, FileID: s.Ingest.FileID,
			Offset: s.Ingest.Offset, Line: s.Ingest.Line, Cursor: s.Ingest.Cursor}
	}
	have, err := im.st.IngestState(ctx, s.ID)
	switch {
	case err == nil && (have.Offset >= b.State.Offset || have.FileID != b.State.FileID && have.FileID != ""):
		b.State = have
	case err != nil && !errors.Is(err, carryover.ErrNotFound):
		return err
	}
	b.State.SessionID = s.ID
	im.batch, im.open = b, true
	im.sessions++
	return nil
}

// flush applies what was read of the current session.
func (im *importer) flush(ctx context.Context) error {
	if !im.open || im.skipping() {
		return nil
	}
	if err := im.st.Apply(ctx, im.batch); errors.Is(err, carryover.ErrForgotten) {
		// Forgotten while this import ran.
		im.gone[im.batch.Session.ID] = true
		im.sessions--
		im.skipped++
		return nil
	} else if err != nil {
		return fmt.Errorf("session %s: %w", im.batch.Session.ID, err)
	}
	im.batch.Chunks, im.batch.Items, im.batch.Compactions = nil, nil, nil
	return nil
}

// audit adds the injections and notes the store does not have yet, with
// their chunk and item ids mapped to this store's.
func (im *importer) audit(ctx context.Context) error {
	chunkIDs := map[string]map[int]int64{}    // session → seq → id
	itemIDs := map[string]map[itemRef]int64{} // session → item → id
	chunkID := func(ref chunkRef) (int64, error) {
		m, ok := chunkIDs[ref.session]
		if !ok {
			m = map[int]int64{}
			cs, err := im.st.Chunks(ctx, carryover.ChunkFilter{SessionID: ref.session, Turn: -1})
			if err != nil {
				return 0, err
			}
			for _, c := range cs {
				m[c.Seq] = c.ID
			}
			chunkIDs[ref.session] = m
		}
		return m[ref.seq], nil
	}
	itemID := func(ref itemRef) (int64, error) {
		m, ok := itemIDs[ref.session]
		if !ok {
			m = map[itemRef]int64{}
			its, err := im.st.Items(ctx, carryover.ItemFilter{SessionID: ref.session})
			if err != nil {
				return 0, err
			}
			for _, it := range its {
				m[itemRef{it.SessionID, string(it.Kind), it.Key}] = it.ID
			}
			itemIDs[ref.session] = m
		}
		return m[ref], nil
	}

	type injKey struct {
		ms          int64
		event, hash string
	}
	seenIns := map[string]map[injKey]bool{}
	for _, in := range im.injections {
		if gone, err := im.forgotten(ctx, in.Session); err != nil {
			return err
		} else if gone {
			continue
		}
		seen, ok := seenIns[in.Session]
		if !ok {
			seen = map[injKey]bool{}
			have, err := im.st.Injections(ctx, in.Session, 0)
			if err != nil {
				return err
			}
			for _, h := range have {
				seen[injKey{h.Time.UnixMilli(), h.Event, h.Hash}] = true
			}
			seenIns[in.Session] = seen
		}
		k := injKey{in.Time.UnixMilli(), in.Event, in.Hash}
		if seen[k] {
			im.present++
			continue
		}
		rec := carryover.Injection{Time: in.Time, SessionID: in.Session, Project: in.Project, Event: in.Event,
			Window: in.Window, Chars: in.Chars, Tokens: in.Tokens, Hash: in.Hash,
			Latency: time.Duration(in.LatencyUS) * time.Microsecond}
		// Ids of rows the export did not hold (or that deduplicated into
		// another session's) are dropped.
		for _, id := range in.ChunkIDs {
			if ref, ok := im.chunkIDs[id]; ok {
				if n, err := chunkID(ref); err != nil {
					return err
				} else if n != 0 {
					rec.ChunkIDs = append(rec.ChunkIDs, n)
				}
			}
		}
		for _, id := range in.ItemIDs {
			if ref, ok := im.itemIDs[id]; ok {
				if n, err := itemID(ref); err != nil {
					return err
				} else if n != 0 {
					rec.ItemIDs = append(rec.ItemIDs, n)
				}
			}
		}
		if _, err := im.st.RecordInjection(ctx, rec); err != nil {
			return err
		}
		seen[k] = true
		im.newInjections++
	}

	type noteKey struct {
		ms         int64
		kind, text string
	}
	seenNotes := map[string]map[noteKey]bool{}
	latestState := map[string]time.Time{}
	for _, n := range im.notes {
		if gone, err := im.forgotten(ctx, n.Session); err != nil {
			return err
		} else if gone {
			continue
		}
		seen, ok := seenNotes[n.Session]
		if !ok {
			seen = map[noteKey]bool{}
			have, err := im.st.Notes(ctx, "", n.Session)
			if err != nil {
				return err
			}
			for _, h := range have {
				seen[noteKey{h.Time.UnixMilli(), h.Kind, h.Text}] = true
				if h.Kind == "state" && h.Time.After(latestState[n.Session]) {
					latestState[n.Session] = h.Time
				}
			}
			seenNotes[n.Session] = seen
		}
		k := noteKey{n.Time.UnixMilli(), n.Kind, n.Text}
		// A state note replaces the session's state: an older one must not.
		if seen[k] || n.Kind == "state" && !latestState[n.Session].IsZero() && !n.Time.After(latestState[n.Session]) {
			im.present++
			continue
		}
		if _, err := im.st.AddNote(ctx, carryover.Note{Time: n.Time, SessionID: n.Session, Project: n.Project,
			Kind: n.Kind, Text: n.Text}); err != nil {
			return err
		}
		seen[k] = true
		if n.Kind == "state" {
			latestState[n.Session] = n.Time
		}
		im.newNotes++
	}
	return nil
}
