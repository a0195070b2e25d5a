package exportfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/redact"
)

// importBatch bounds the chunks written per transaction.
const importBatch = 500

// importRawBytes bounds the raw lines' text written per transaction, as
// an ingest batch does.
const importRawBytes = 1 << 20

// maxLine caps one record; chunks are a few kilobytes, compaction
// summaries tens.
const maxLine = 16 << 20

// ErrVersion means the file was written by a newer carryover.
var ErrVersion = errors.New("written by a newer carryover")

// ReadOptions tune Read.
type ReadOptions struct {
	// Redactor masks secrets before anything is stored (an export written
	// elsewhere may hold some); nil means the built-in detectors alone.
	Redactor *redact.Redactor
}

// ReadReport says what an import did.
type ReadReport struct {
	Header Header
	// Read counts the records read (sessions archived, chunks, items and
	// compactions, duplicates included: the store merges them).
	Read Counts
	// NewInjections and NewNotes are the audit records and notes added;
	// Present those the store had already.
	NewInjections, NewNotes, Present int
	// Skipped counts the sessions the store forgot.
	Skipped int
}

// Read imports an export from r into st. It is idempotent: what the store
// already holds is recognised and not added again, and a session the
// store has archived further is never rewound.
func Read(ctx context.Context, r io.Reader, st carryover.Store, opt ReadOptions) (ReadReport, error) {
	im := &importer{st: st, r: opt.Redactor, chunkIDs: map[int64]chunkRef{}, itemIDs: map[int64]itemRef{}, gone: map[string]bool{}}
	if im.r == nil {
		im.r = redact.New(redact.Options{})
	}
	err := im.read(ctx, r)
	rep := ReadReport{Header: im.header, Read: Counts{Sessions: im.sessions, Chunks: im.chunks, Items: im.items,
		Compactions: im.compactions, RawLines: im.rawLines}, NewInjections: im.newInjections, NewNotes: im.newNotes,
		Present: im.present, Skipped: im.skipped}
	return rep, err
}

type chunkRef struct {
	session, hash string
}

type itemRef struct {
	session, kind, key string
}

type importer struct {
	st     carryover.Store
	r      *redact.Redactor
	header Header
	// rawStream masks the current session's raw lines in order: a private
	// key cut across transcript lines is masked in every part, as ingest
	// masks it. stream does the same for its chunk, item and compaction
	// records (a key or a token cut across chunks).
	rawStream, stream *redact.Stream
	// The session being read and what of it is not yet applied.
	batch    carryover.Batch
	open     bool
	chunkIDs map[int64]chunkRef // exporting store's chunk id → chunk
	itemIDs  map[int64]itemRef
	// archived is the last transcript line of the current session that
	// the store archived itself, and covered the line ranges of the chunks
	// it holds: an import into a store that archived the session (with
	// other chunk boundaries, so other hashes) adds no chunk over lines it
	// has.
	archived int
	covered  [][2]int
	// Audit records and notes wait for every chunk and item: they refer to
	// them by id.
	injections []InjectionRecord
	notes      []NoteRecord

	sessions, chunks, items, compactions int
	newInjections, newNotes, present     int
	// rawLines counts the raw lines read, rawBytes the text of those in
	// the batch.
	rawLines, rawBytes int
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

// readLine reads one line without its newline, up to maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("record longer than %d bytes", maxLine)
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
		if im.header.Format != Format {
			return fmt.Errorf("not a carryover export: format %q", im.header.Format)
		}
		if im.header.Version < 1 || im.header.Version > Version {
			return fmt.Errorf("export format version %d, this carryover reads 1 to %d: %w", im.header.Version, Version, ErrVersion)
		}
		return nil
	}
	if head.Type == "session" || im.rawStream == nil {
		im.rawStream, im.stream = im.r.Stream(redact.Carry{}), im.r.Stream(redact.Carry{})
	}
	switch head.Type {
	case "raw": // masked as the transcript line it holds
	case "chunk", "item", "compaction":
		data, _ = im.stream.RedactJSON(data)
	default:
		data, _ = im.r.RedactJSON(data)
	}
	switch head.Type {
	case "session":
		var s SessionRecord
		if err := strictUnmarshal(data, &s); err != nil {
			return err
		}
		return im.session(ctx, s)
	case "chunk":
		var c ChunkRecord
		if err := strictUnmarshal(data, &c); err != nil {
			return err
		}
		if err := im.belongs(c.Session); err != nil || im.skipping() {
			return err
		}
		if c.Hash == "" {
			return fmt.Errorf("chunk %d has no hash", c.Seq)
		}
		im.chunkIDs[c.ID] = chunkRef{c.Session, c.Hash}
		im.chunks++
		if im.isCovered(c.FirstLine, c.LastLine) {
			return nil
		}
		im.batch.Chunks = append(im.batch.Chunks, carryover.Chunk{SessionID: c.Session, Project: im.batch.Session.Project,
			Seq: c.Seq, Turn: c.Turn, Window: c.Window, FirstLine: c.FirstLine, LastLine: c.LastLine, Start: c.Start,
			End: c.End, Prompt: c.Prompt, Summary: c.Summary, Text: c.Text, Tools: c.Tools, Files: c.Files,
			Commands: c.Commands, Errors: c.Errors, Sidechain: c.Sidechain, AgentID: c.AgentID, Hash: c.Hash})
		if len(im.batch.Chunks) >= importBatch {
			return im.flush(ctx)
		}
	case "item":
		var it ItemRecord
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
		var c CompactionRecord
		if err := strictUnmarshal(data, &c); err != nil {
			return err
		}
		if err := im.belongs(c.Session); err != nil || im.skipping() {
			return err
		}
		im.batch.Compactions = append(im.batch.Compactions, carryover.Compaction{SessionID: c.Session, Window: c.Window,
			Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens, Line: c.Line, Time: c.Time, Summary: c.Summary})
		im.compactions++
	case "raw":
		if im.header.Version < 2 {
			return errors.New(`a "raw" record in a version 1 export`)
		}
		var rec RawRecord
		if err := strictUnmarshal(data, &rec); err != nil {
			return err
		}
		if err := im.belongs(rec.Session); err != nil || im.skipping() {
			return err
		}
		return im.raw(ctx, rec)
	case "injection":
		var in InjectionRecord
		if err := strictUnmarshal(data, &in); err != nil {
			return err
		}
		if err := carryover.ValidArchivedID(in.Session); err != nil {
			return err
		}
		im.injections = append(im.injections, in)
	case "note":
		var n NoteRecord
		if err := strictUnmarshal(data, &n); err != nil {
			return err
		}
		// A project's own notes belong to no session.
		if n.Session != "" {
			if err := carryover.ValidArchivedID(n.Session); err != nil {
				return err
			}
		}
		im.notes = append(im.notes, n)
	case "header":
		return errors.New("a second header")
	default:
		return fmt.Errorf("unknown record type %q", head.Type)
	}
	return nil
}

// raw adds one raw line to the session's batch. The batch adds only the
// lines after those the store has (Batch.RawReplace is off): an import
// never rewrites or rewinds a session's raw archive.
func (im *importer) raw(ctx context.Context, rec RawRecord) error {
	if rec.Line < 1 || rec.Size < 0 || rec.Offset < 0 {
		return fmt.Errorf("raw line %d: bad line number, offset or size", rec.Line)
	}
	text := []byte(rec.Text)
	if len(rec.Data) > 0 {
		text = rec.Data // not UTF-8, so not JSON: masked as text
	}
	// The line is a transcript's: its strings are masked decoded (in the
	// record they are escaped, and an escape can hide a secret), and as
	// the continuation of the lines before.
	text, _ = im.rawStream.RedactJSON(text)
	if bytes.IndexByte(text, '\n') >= 0 {
		return fmt.Errorf("raw line %d holds a newline", rec.Line)
	}
	// A batch holds consecutive lines: a gap starts the next one.
	if n := len(im.batch.Raw); n > 0 && im.batch.Raw[n-1].Line+1 != rec.Line {
		if err := im.flush(ctx); err != nil {
			return err
		}
	}
	im.batch.Raw = append(im.batch.Raw, carryover.RawLine{Line: rec.Line, Offset: rec.Offset, Size: rec.Size, Text: text})
	im.rawLines++
	im.rawBytes += len(text) + 1
	if im.rawBytes >= importRawBytes {
		return im.flush(ctx)
	}
	return nil
}

// strictUnmarshal decodes one record, refusing fields this package does
// not know: a file of a known version has none.
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

// isCovered reports whether the store's chunks of the session already
// cover the line range.
func (im *importer) isCovered(first, last int) bool {
	if first <= 0 || last < first {
		return false
	}
	if last <= im.archived {
		return true
	}
	for _, r := range im.covered {
		if r[0] <= first && last <= r[1] {
			return true
		}
	}
	return false
}

// session starts a session: what was read of the previous one is applied.
// A session the store already has keeps its ingest state when that is
// further along, so that an old export never rewinds a live session.
func (im *importer) session(ctx context.Context, s SessionRecord) error {
	if err := im.flush(ctx); err != nil {
		return err
	}
	if err := carryover.ValidArchivedID(s.ID); err != nil {
		return err
	}
	im.batch, im.open, im.covered, im.archived = carryover.Batch{Session: carryover.Session{ID: s.ID}}, true, nil, 0
	if gone, err := im.forgotten(ctx, s.ID); err != nil {
		return err
	} else if gone {
		im.skipped++
		return nil
	}
	b := carryover.Batch{Session: carryover.Session{ID: s.ID, Parent: s.Parent, Project: projectdir.Clean(s.Project), Cwd: s.Cwd, Branch: s.Branch, TranscriptPath: s.TranscriptPath,
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
	if err == nil {
		chunks, err := im.st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
		if err != nil {
			return err
		}
		im.covered, im.archived = coverage(chunks), have.Line
	}
	b.State.SessionID = s.ID
	im.batch, im.open = b, true
	im.sessions++
	return nil
}

// coverage merges the chunks' line ranges into disjoint ranges.
func coverage(chunks []carryover.Chunk) [][2]int {
	var rs [][2]int
	for _, c := range chunks {
		if c.FirstLine > 0 && c.LastLine >= c.FirstLine {
			rs = append(rs, [2]int{c.FirstLine, c.LastLine})
		}
	}
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
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
	im.batch.Chunks, im.batch.Items, im.batch.Compactions, im.batch.Raw, im.rawBytes = nil, nil, nil, nil, 0
	return nil
}

// audit adds the injections and notes the store does not have yet, with
// their chunk and item ids mapped to this store's.
func (im *importer) audit(ctx context.Context) error {
	chunkIDs := map[string]map[string]int64{} // session → hash → id
	itemIDs := map[string]map[itemRef]int64{} // session → item → id
	chunkID := func(ref chunkRef) (int64, error) {
		m, ok := chunkIDs[ref.session]
		if !ok {
			m = map[string]int64{}
			cs, err := im.st.Chunks(ctx, carryover.ChunkFilter{SessionID: ref.session, Turn: -1})
			if err != nil {
				return 0, err
			}
			for _, c := range cs {
				m[c.Hash] = c.ID
			}
			chunkIDs[ref.session] = m
		}
		return m[ref.hash], nil
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

	seenIns := map[string]map[carryover.InjectionKey]bool{}
	for _, rec := range im.injections {
		if gone, err := im.forgotten(ctx, rec.Session); err != nil {
			return err
		} else if gone {
			continue
		}
		seen, ok := seenIns[rec.Session]
		if !ok {
			seen = map[carryover.InjectionKey]bool{}
			have, err := im.st.Injections(ctx, rec.Session, 0)
			if err != nil {
				return err
			}
			for _, h := range have {
				seen[h.Key()] = true
			}
			seenIns[rec.Session] = seen
		}
		in := carryover.Injection{Time: rec.Time, SessionID: rec.Session, Project: projectdir.Clean(rec.Project), Event: rec.Event,
			Window: rec.Window, Chars: rec.Chars, Tokens: rec.Tokens, Hash: rec.Hash,
			Latency: time.Duration(rec.LatencyUS) * time.Microsecond, Text: rec.Text, Reason: rec.Reason}
		if seen[in.Key()] {
			im.present++
			continue
		}
		// Ids of rows the export did not hold (or that deduplicated into
		// another session's) are dropped.
		for _, id := range rec.ChunkIDs {
			if ref, ok := im.chunkIDs[id]; ok {
				if n, err := chunkID(ref); err != nil {
					return err
				} else if n != 0 {
					in.ChunkIDs = append(in.ChunkIDs, n)
				}
			}
		}
		for _, id := range rec.ItemIDs {
			if ref, ok := im.itemIDs[id]; ok {
				if n, err := itemID(ref); err != nil {
					return err
				} else if n != 0 {
					in.ItemIDs = append(in.ItemIDs, n)
				}
			}
		}
		if _, err := im.st.RecordInjection(ctx, in); err != nil {
			return err
		}
		seen[in.Key()] = true
		im.newInjections++
	}

	notes := map[string][]carryover.Note{} // scope (session, else project) → notes the store has
	for _, rec := range im.notes {
		if gone, err := im.forgotten(ctx, rec.Session); err != nil {
			return err
		} else if gone {
			continue
		}
		// A Windows project in one form, as this store keeps it (see
		// projectdir.Clean), whatever machine exported it.
		rec.Project = projectdir.Clean(rec.Project)
		n := carryover.Note{Time: rec.Time, SessionID: rec.Session, Project: rec.Project, Kind: rec.Kind, Text: rec.Text}
		// A session's notes, or a project's own (those of no session).
		scope, project := "s:"+rec.Session, ""
		if rec.Session == "" {
			scope, project = "p:"+rec.Project, rec.Project
		}
		have, ok := notes[scope]
		if !ok {
			var err error
			if have, err = im.st.Notes(ctx, project, rec.Session); err != nil {
				return err
			}
			if rec.Session == "" {
				have = slices.DeleteFunc(have, func(h carryover.Note) bool { return h.SessionID != "" })
			}
		}
		if slices.ContainsFunc(have, func(h carryover.Note) bool { return carryover.NoteRedundant(h, n, rec.Session == "") }) {
			im.present++
			notes[scope] = have
			continue
		}
		if _, err := im.st.AddNote(ctx, n); err != nil {
			return err
		}
		if n.Kind == "state" {
			have = slices.DeleteFunc(have, func(h carryover.Note) bool { return h.Kind == "state" })
		}
		notes[scope] = append(have, n)
		im.newNotes++
	}
	return nil
}
