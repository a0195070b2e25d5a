// Package ingest archives transcripts into a Store: the one recipe — read
// the transcript incrementally, redact, chunk, extract items, store (the
// store embeds) with the masked raw lines — used by every hook, `carryover
// ingest`, the status line and the demo. It resumes at the byte offset of the last ingest, detects
// rewritten or truncated files, and commits in bounded batches so that a
// hook stopped by its deadline keeps the progress it made.
package ingest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/transcript"
)

// DefaultBatchBytes bounds the transcript bytes committed per transaction.
// Each transaction rewrites pages of the full-text indexes (and merges
// their segments) and the raw archive's last block: a cold ingest of a
// long session costs less in fewer, larger ones (the largest real session,
// 3.4 MB, archives into a fresh store in about 105 ms rather than 135,
// in-process, as one transaction rather than four). A hook past its
// deadline keeps the transactions it committed.
const DefaultBatchBytes = 4 << 20

// stepBytes is how much of the transcript is read, masked and chunked at a
// time, up to BatchBytes: a step's entries are all in memory at once, and
// where steps end is part of how a transcript is chunked (the archive of a
// transcript does not depend on how its steps are committed).
const stepBytes = 1 << 20

// Archiver archives transcripts into a store.
type Archiver struct {
	Store carryover.Store
	// Redactor masks secrets before anything is chunked or stored; nil
	// means the built-in detectors alone.
	Redactor   *redact.Redactor
	BatchBytes int64 // default DefaultBatchBytes
	Chunk      chunk.Options
	// Prepare, when set, is told how many bytes of transcript File is
	// about to read, before it reads them: a short-lived process prepares
	// its heap for them (hugeheap.Prepare).
	Prepare func(n int64)
	// DeferPassages leaves the passages of the raw lines
	// (carryover.PassageSearcher) to a later IndexPassages: a hook the
	// user waits on (PreCompact) does not index text.
	DeferPassages bool
}

// Options name what one transcript is.
type Options struct {
	SessionID string // default: derived from the file name
	// Project is the project of a session not archived yet (its
	// repository's root is taken). By default: its parent's, for a
	// subagent; else the repository root of Cwd; else of the directory its
	// transcript starts in. A session keeps the project it was first
	// archived under, however the model moves (cd) later.
	Project string
	// Cwd is where the caller runs (a hook's payload cwd); also the
	// session's own directory when its transcript names none.
	Cwd string
}

// Report says what one ingest did.
type Report struct {
	SessionID string
	Project   string
	Lines     int   // lines consumed
	Bytes     int64 // bytes consumed
	Chunks    int   // chunks built (duplicates included)
	Items     int
	Skipped   int  // malformed or oversized lines
	Restarted bool // the file was rewritten or truncated: read again from the start
	Complete  bool // reached the end of the complete lines
	Window    int  // compactions seen in the session
	// Session is the session as this archive left it in the store (counts
	// aside), when Complete and the store had it before; its ID is ""
	// otherwise. A hook reads it here rather than again.
	Session carryover.Session
	// Compactions are the compactions this archive read, summaries
	// masked, in order; the store merged each into its row for the
	// window. A hook takes the summary of the compaction that just ran
	// from here rather than read it back.
	Compactions []carryover.Compaction
	// Redactions counts the secrets masked, by kind.
	Redactions map[string]int
}

// ErrNotRegular means the path is not a regular file (a directory, FIFO,
// device...): reading it could block or make no sense.
var ErrNotRegular = errors.New("not a regular file")

// ErrNotTranscript means a file that does not read as a transcript: none
// of its first lines is a JSON object.
var ErrNotTranscript = errors.New("not a transcript: no JSON lines")

// transcriptPeek is how much of a file checkTranscript reads.
const transcriptPeek = 64 << 10

// checkTranscript accepts an empty file, or one whose first lines
// (transcriptPeek bytes) hold a JSON object on a line of its own, or whose
// last line there, cut by the peek or still being written, starts as one.
// Claude Code writes a JSON object a line; a damaged line or two among
// them is skipped later.
func checkTranscript(f *os.File) error {
	buf := make([]byte, transcriptPeek)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read transcript: %w", err)
	}
	buf = buf[:n]
	if len(bytes.TrimSpace(buf)) == 0 {
		return nil
	}
	for rest := buf; len(rest) > 0; {
		line, after, complete := bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSpace(line)
		if !complete {
			if bytes.HasPrefix(line, []byte("{")) {
				return nil // a line longer than the rest of the peek, or still being written
			}
			break
		}
		if bytes.HasPrefix(line, []byte("{")) && json.Valid(line) {
			return nil
		}
		rest = after
	}
	return ErrNotTranscript
}

// SessionIDFromPath derives a session id from a transcript path: the file
// stem, qualified by the parent session for subagent transcripts
// (<session>/subagents/agent-x.jsonl).
func SessionIDFromPath(path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		return filepath.Base(filepath.Dir(dir)) + "/" + stem
	}
	return stem
}

// SessionIDOf is the id a transcript is archived under: SessionIDFromPath,
// or for a file not named by its session (a renamed copy), the session id
// its first lines give. "" when neither gives one.
func SessionIDOf(path string) string {
	id := SessionIDFromPath(path)
	if looksLikeSessionID(id) {
		return id
	}
	f, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return peekSessionID(f)
}

// looksLikeSessionID reports whether a file stem is a Claude Code session
// id (a UUID) or a subagent transcript name.
func looksLikeSessionID(stem string) bool {
	base := stem[strings.LastIndexByte(stem, '/')+1:]
	if strings.HasPrefix(base, "agent-") {
		return true
	}
	if len(base) != 36 {
		return false
	}
	for i, r := range base {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// peekSessionID reads the session id from the first lines of a transcript
// whose file was renamed.
func peekSessionID(f *os.File) string {
	r := transcript.NewReader(io.NewSectionReader(f, 0, 1<<20), 0, 0)
	for range 50 {
		e, err := r.Next()
		if err != nil {
			return ""
		}
		if e.SessionID != "" && !e.Sidechain {
			return e.SessionID
		}
	}
	return ""
}

// File archives what is new in the transcript at path. It stops early,
// with the progress committed, when ctx is done.
func (a *Archiver) File(ctx context.Context, path string, opt Options) (Report, error) {
	rep := Report{SessionID: opt.SessionID}
	if err := ValidPath(path); err != nil {
		return rep, err
	}
	st := a.Store
	f, err := openRegular(path)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	if rep.SessionID == "" {
		rep.SessionID = SessionIDFromPath(path)
		if !looksLikeSessionID(rep.SessionID) {
			if id := peekSessionID(f); id != "" {
				rep.SessionID = id
			}
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return rep, fmt.Errorf("stat transcript: %w", err)
	}

	// The session without counts: what the archive writes back has none,
	// and counting a long session's chunks is a read of each.
	state, s, inStore, err := carryover.ReadIngestStateAndSession(ctx, st, rep.SessionID)
	known := err == nil
	if err != nil && !errors.Is(err, carryover.ErrNotFound) {
		return rep, fmt.Errorf("ingest state: %w", err)
	}
	sess := carryover.Session{ID: rep.SessionID, TranscriptPath: path, Parent: carryover.ParentOfID(rep.SessionID)}
	stored := sess
	if inStore {
		sess, stored = s, s
		sess.TranscriptPath = path
	}
	// What the transcript's place tells of a subagent: its parent (the
	// flat layout names it only inside) and its description.
	flat := opt.SessionID == "" && isFlatAgent(path)
	if sess.Parent == "" && flat {
		sess.Parent = peekParent(f, rep.SessionID)
	}
	red := a.Redactor
	if red == nil {
		red = redact.New(redact.Options{})
	}
	if desc := agentDescription(path); desc != "" {
		sess.Title, _ = red.Redact(desc)
	}
	cur := chunk.NewCursor()
	// carry and rawCarry are where the entries' masking and the raw lines'
	// left off: a private key cut across texts is masked in both.
	var carry, rawCarry redact.Carry
	if known {
		if fi.Size() < state.Offset {
			rep.Restarted = true
		} else if fp, err := transcript.Fingerprint(f, state.Offset); err != nil {
			return rep, err
		} else if fp != state.FileID {
			rep.Restarted = true
		}
		if !rep.Restarted && len(state.Cursor) > 0 {
			saved := savedCursor{Cursor: cur}
			if err := json.Unmarshal(state.Cursor, &saved); err != nil {
				rep.Restarted = true // unreadable cursor: start over, hashes prevent duplicates
			}
			cur, carry, rawCarry = saved.Cursor, saved.Redact, saved.RawRedact
		}
		if rep.Restarted {
			state.Offset, state.Line = 0, 0
			cur, carry, rawCarry = chunk.NewCursor(), redact.Carry{}, redact.Carry{}
			// Sequence numbers stay unique in the session: items point at
			// their chunk by it. Content already stored is recognised by hash.
			last, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: rep.SessionID, Turn: -1, Newest: true, Limit: 1})
			if err != nil {
				return rep, fmt.Errorf("last chunk: %w", err)
			}
			if len(last) > 0 {
				cur.Seq = last[0].Seq + 1
			}
		}
	}
	if sess.Project == "" && sess.Parent != "" {
		// A subagent belongs to its parent's project, whatever worktree
		// it ran in.
		if p, err := carryover.SessionWithoutCounts(ctx, st, sess.Parent); err == nil {
			sess.Project = p.Project
		}
	}
	if sess.Project == "" {
		if dir := cmp.Or(opt.Project, opt.Cwd); dir != "" {
			sess.Project = projectdir.Root(filepath.Clean(dir))
		}
	}
	stream := red.Stream(carry)
	batchBytes := a.BatchBytes
	if batchBytes <= 0 {
		batchBytes = DefaultBatchBytes
	}

	if state.Offset == 0 {
		// Read from the start: a file that holds no transcript (a link to
		// a system file passed as transcript_path) is not archived, raw
		// lines included.
		if err := checkTranscript(f); err != nil {
			return rep, fmt.Errorf("transcript %s: %w", path, err)
		}
	}
	if _, err := f.Seek(state.Offset, io.SeekStart); err != nil {
		return rep, fmt.Errorf("seek transcript: %w", err)
	}
	if a.Prepare != nil {
		a.Prepare(fi.Size() - state.Offset)
	}
	r := transcript.NewReader(f, state.Offset, state.Line)
	raw := newRawReader(f, state.Offset, state.Line, red, rawCarry)
	defer raw.stop()
	// A transcript read again from the start replaces the session's raw
	// lines; otherwise a batch adds those after the stored ones.
	replaceRaw := rep.Restarted
	var entries []transcript.Entry // reused: nothing keeps a step's entries
	// pending holds the steps read since the last commit.
	var pending carryover.Batch
	pendingBytes := int64(0)
	step := min(batchBytes, stepBytes)
	// complete records that every complete line is archived.
	complete := func() {
		rep.Complete = true
		rep.Skipped = r.Skipped
		rep.Project = sess.Project
		rep.Window = cur.Window
		if inStore {
			// Read before and changed as the store changes it.
			rep.Session = sess
		}
	}
	commit := func(eof bool) error {
		if err := st.Apply(ctx, pending); err != nil {
			return fmt.Errorf("store batch: %w", err)
		}
		rep.Lines = pending.State.Line - state.Line
		rep.Bytes = pending.State.Offset - state.Offset
		rep.Chunks += len(pending.Chunks)
		rep.Items += len(pending.Items)
		rep.Compactions = append(rep.Compactions, pending.Compactions...)
		redact.AddCounts(&rep.Redactions, pending.Redactions)
		pending, pendingBytes = carryover.Batch{}, 0
		replaceRaw = false
		if eof {
			complete()
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		start := r.Offset()
		clear(entries)
		entries = entries[:0]
		eof := false
		for r.Offset()-start < step {
			e, err := r.Next()
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				return rep, err
			}
			entries = append(entries, e)
			raw.advance(r.Offset())
		}
		if r.Offset() == start {
			if pendingBytes > 0 {
				return rep, commit(true)
			}
			// Nothing new, but a session archived before parents and
			// descriptions were read gets them.
			if known && (sess.Parent != stored.Parent || sess.Title != stored.Title) {
				state.Path = path
				if err := st.Apply(ctx, carryover.Batch{Session: sess, State: state}); err != nil {
					return rep, fmt.Errorf("store session: %w", err)
				}
			}
			complete()
			return rep, nil
		}
		// The project is the directory's own (hooks look sessions up by
		// it); the cwd kept is masked, as the branch and version.
		cwd := sess.Cwd
		if cwd == "" {
			cwd = cmp.Or(cwdOf(entries), opt.Cwd)
			sess.Cwd, _ = red.Redact(cwd)
		}
		if sess.Project == "" && cwd == "" {
			sess.Project = folderProject(ctx, st, path)
		}
		if sess.Project == "" {
			sess.Project = projectdir.Root(cmp.Or(cwd, filepath.Dir(path)))
		}
		// Masked before chunking: chunks, items, summaries, titles and
		// content hashes are all built from the masked text.
		masked, maskedLines := redactEntries(stream, entries)
		res := chunk.Build(rep.SessionID, sess.Project, entries, cur, a.Chunk)
		cur = res.Cursor
		fp, err := transcript.Fingerprint(f, r.Offset())
		if err != nil {
			return rep, err
		}
		updateSession(&sess, entries, res, cur, red)
		rawRes, err := raw.take(ctx, r.Offset())
		if err != nil {
			return rep, err
		}
		cursor, err := json.Marshal(savedCursor{Cursor: cur, Redact: stream.Carry(), RawRedact: rawRes.carry})
		if err != nil {
			return rep, fmt.Errorf("encode cursor: %w", err)
		}
		redact.AddCounts(&masked, rawBatch(red, rawRes, maskedLines))
		// The steps of one transaction are stored as separate batches
		// would be, one after the other: a later chunk of the same content
		// points at the earlier one, a later item merges into it.
		pending.Session = sess
		pending.Chunks = append(pending.Chunks, res.Chunks...)
		pending.Items = append(pending.Items, res.Items...)
		pending.Compactions = append(pending.Compactions, res.Compactions...)
		pending.State = carryover.IngestState{
			SessionID: rep.SessionID, Path: path, FileID: fp,
			Offset: r.Offset(), Line: r.Line(), Cursor: cursor,
		}
		redact.AddCounts(&pending.Redactions, masked)
		pending.Raw = append(pending.Raw, rawRes.lines...)
		pending.RawReplace = replaceRaw
		pending.DeferPassages = a.DeferPassages
		pendingBytes += r.Offset() - start
		if eof || pendingBytes >= batchBytes {
			if err := commit(eof); err != nil {
				return rep, err
			}
			if eof {
				return rep, nil
			}
		}
	}
}

// ValidPath rejects transcript paths Claude Code would not send: empty,
// relative (they would resolve against wherever the process runs), with a
// NUL byte, or longer than any real one.
func ValidPath(p string) error {
	switch {
	case p == "":
		return errors.New("no transcript path")
	case len(p) > 4096:
		return fmt.Errorf("transcript path is %d bytes long", len(p))
	case strings.ContainsRune(p, 0):
		return errors.New("transcript path contains a NUL byte")
	case !filepath.IsAbs(p):
		return fmt.Errorf("transcript path %q is not absolute", p)
	}
	return nil
}

// openRegular opens path for reading without blocking on a FIFO and refuses
// anything but a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open transcript %s: %w", path, ErrNotRegular)
	}
	return f, nil
}

// folderProject is the project of another session archived from the
// folder that holds the transcript at path, when that folder is one of
// Claude Code's (C--Users-me-shop, -home-me-app, named for the directory
// its sessions ran in), else "": a transcript that names no directory
// belongs with its neighbours, on Windows as elsewhere.
func folderProject(ctx context.Context, st carryover.Store, path string) string {
	dir := filepath.Dir(path)
	if !projectdir.IsClaudeFolder(filepath.Base(dir)) {
		return ""
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{TopLevel: true})
	if err != nil {
		return "" // the folder's own path, as before
	}
	for _, s := range all {
		if s.TranscriptPath != "" && s.TranscriptPath != path && filepath.Dir(s.TranscriptPath) == dir && s.Project != "" {
			return s.Project
		}
	}
	return ""
}

// cwdOf is the first cwd in the entries, "" when none has one.
func cwdOf(entries []transcript.Entry) string {
	for _, e := range entries {
		if e.Cwd != "" {
			return e.Cwd
		}
	}
	return ""
}

// isFlatAgent reports whether path is a subagent transcript of the flat
// layout older Claude Code versions write: <project>/agent-<id>.jsonl
// beside its parent's <sessionId>.jsonl.
func isFlatAgent(path string) bool {
	return strings.HasPrefix(filepath.Base(path), "agent-") && filepath.Base(filepath.Dir(path)) != "subagents"
}

// peekParent reads a flat-layout subagent's parent from its first lines:
// they carry the parent's sessionId.
func peekParent(f *os.File, self string) string {
	r := transcript.NewReader(io.NewSectionReader(f, 0, 1<<20), 0, 0)
	for range 50 {
		e, err := r.Next()
		if err != nil {
			return ""
		}
		if e.SessionID != "" && e.SessionID != self && carryover.ValidSessionID(e.SessionID) == nil {
			return e.SessionID
		}
	}
	return ""
}

// maxMeta bounds what is read of a subagent's .meta.json.
const maxMeta = 64 << 10

// agentDescription is the description Claude Code keeps beside a
// subagent's transcript (agent-<id>.meta.json: {"agentType",
// "description"}), "" when there is none.
func agentDescription(path string) string {
	if !strings.HasPrefix(filepath.Base(path), "agent-") {
		return ""
	}
	f, err := os.Open(strings.TrimSuffix(path, filepath.Ext(path)) + ".meta.json")
	if err != nil {
		return ""
	}
	defer f.Close()
	var meta struct {
		Description string `json:"description"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxMeta)).Decode(&meta); err != nil {
		return ""
	}
	return strings.Join(strings.Fields(meta.Description), " ")
}

func updateSession(s *carryover.Session, entries []transcript.Entry, res chunk.Result, cur chunk.Cursor, red *redact.Redactor) {
	for _, e := range entries {
		if e.Time.IsZero() {
			continue
		}
		if s.Started.IsZero() || e.Time.Before(s.Started) {
			s.Started = e.Time
		}
		if e.Time.After(s.Updated) {
			s.Updated = e.Time
		}
	}
	// The transcript's last word on them, masked as its texts are.
	for _, e := range slices.Backward(entries) {
		if e.Version != "" {
			s.Version, _ = red.Redact(e.Version)
			break
		}
	}
	for _, e := range slices.Backward(entries) {
		if e.GitBranch != "" {
			s.Branch, _ = red.Redact(e.GitBranch)
			break
		}
	}
	if s.Title == "" {
		s.Title = res.Title
	}
	if s.Title == "" && s.Parent != "" && len(res.Chunks) > 0 {
		// A subagent's task is no user prompt, but it is what it did.
		s.Title = oneLine(res.Chunks[0].Prompt, 120)
	}
	s.Windows = max(s.Windows, cur.Window)
	s.Turns = max(s.Turns, cur.Turn+1)
}

// oneLine joins s's words on one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// savedCursor is the ingest state's cursor: the chunker's, and the
// redactor's carry (a private key left open by the last entry, which the
// next entries may continue).
type savedCursor struct {
	chunk.Cursor
	Redact    redact.Carry `json:"redact,omitzero"`
	RawRedact redact.Carry `json:"raw_redact,omitzero"`
}

// redactEntries masks the secrets in every field of the entries that
// chunking reads, in order, counts them by kind, and notes the lines that
// held some.
func redactEntries(r *redact.Stream, entries []transcript.Entry) (map[string]int, map[int]bool) {
	var counts map[string]int
	var lines map[int]bool
	found := false
	text := func(s *string) {
		if *s == "" {
			return
		}
		if out, c := r.Redact(*s); c != nil {
			*s = out
			redact.AddCounts(&counts, c)
			found = true
		}
	}
	raw := func(m *json.RawMessage) {
		if len(*m) == 0 {
			return
		}
		if out, c := r.RedactJSON(*m); c != nil {
			*m = out
			redact.AddCounts(&counts, c)
			found = true
		}
	}
	for i := range entries {
		e := &entries[i]
		found = false
		text(&e.Content)
		for k := range e.Blocks {
			text(&e.Blocks[k].Text)
			raw(&e.Blocks[k].Input)
		}
		raw(&e.ToolUseResult)
		if found {
			if lines == nil {
				lines = map[int]bool{}
			}
			lines[e.Line] = true
		}
	}
	return counts, lines
}
