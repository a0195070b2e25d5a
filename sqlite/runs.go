package sqlite

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/replace"
)

// A hook that only reads the store (a prompt that recalls nothing, most
// prompts) would still write one row, its run for stats. That write is
// most of what such a process spends on the file: SQLite creates the log,
// syncs its header, and on close checkpoints it with two more syncs and
// deletes it (some 3 ms of a 16 ms recall at 100k chunks). With
// Options.DeferHookRuns the run is appended to a journal beside the store
// instead, a line of JSON; the next RecordHookRun that writes the store
// (a hook that archives: Stop, after every turn) folds the journal into
// it, and HookRuns reads both meanwhile.
//
// An injection's audit record is deferred too, for the same reason: a
// recall that injects wrote one row, and the write cost it more than its
// search (some 3 ms of wall time at 100k chunks, mostly the syncs). It goes
// to a journal of its own, with the reaches searches found (reach.go):
// the hooks read those on every run, and a long turn of tool calls leaves
// thousands of runs, which only stats reads. Injections reads that
// journal's beside the table's, so a later prompt of the window still
// skips what was injected.

// runsJournal is the journal of hook runs beside the store db.
func runsJournal(db string) string { return db + runsSuffix }

// recordsJournal is the journal of injections and reaches beside the
// store db.
func recordsJournal(db string) string { return db + recordsSuffix }

// The journals are named after their store.
const (
	runsSuffix    = ".runs"
	recordsSuffix = ".journal"
)

// journalSuffixes name the files of the journals after their store: the
// runs journal and the journal of injections and reaches, each followed by
// its renamed copy while a write folds it into the store.
var journalSuffixes = []string{runsSuffix, runsSuffix + foldingSuffix, recordsSuffix, recordsSuffix + foldingSuffix}

// JournalFiles are the files of the journals beside the store db (see
// journalSuffixes).
func JournalFiles(db string) []string {
	out := make([]string, len(journalSuffixes))
	for i, sfx := range journalSuffixes {
		out[i] = db + sfx
	}
	return out
}

// foldingSuffix names the journal while its runs are folded into the
// store: appends after the rename start a new journal.
const foldingSuffix = ".folding"

// maxJournal bounds the journal (some 30,000 runs, or 250 injections of
// 16 KiB): past it, runs are dropped and injections written to the store
// until a fold empties it.
const maxJournal = 4 << 20

// maxFold bounds the runs, and the injections, one fold inserts, the
// newest kept: it runs inside a hook's record, which has half a second (a
// journal of that many runs means no hook wrote the store for thousands of
// prompts).
const maxFold = 5000

// journalRun is one line of the journal.
type journalRun struct {
	Time    int64  `json:"t"`  // unix ms
	Session string `json:"s"`  // session id
	Project string `json:"p"`  // project
	Event   string `json:"e"`  // event
	Latency int64  `json:"us"` // µs
	Outcome string `json:"o"`
	Chars   int    `json:"c"`
}

// journalInjection is a line of the journal that records an injection;
// its first field, "k":"i", tells it from a run.
type journalInjection struct {
	Kind     string  `json:"k"`
	Time     int64   `json:"t"` // unix ms
	Session  string  `json:"s"`
	Project  string  `json:"p"`
	Event    string  `json:"e"`
	Window   int     `json:"w"`
	Chars    int     `json:"c"`
	Tokens   int     `json:"n"`
	ChunkIDs []int64 `json:"ci"`
	ItemIDs  []int64 `json:"ii"`
	Hash     string  `json:"h"`
	Latency  int64   `json:"us"` // µs
	Reason   string  `json:"r"`
	Text     string  `json:"x"` // last: a read without the text stops before it
}

// injectionLine starts every injection's line (encoding/json writes the
// fields in order); injectionText starts its last field, the text, which
// no other field's value can hold unescaped.
var (
	injectionLine = []byte(`{"k":"i",`)
	injectionText = []byte(`,"x":`)
)

// appendInjection appends in to the journal of injections.
func (s *Store) appendInjection(in carryover.Injection) error {
	return appendLine(s.records, journalInjection{Kind: "i", Time: ms(in.Time), Session: in.SessionID, Project: in.Project,
		Event: in.Event, Window: in.Window, Chars: in.Chars, Tokens: in.Tokens, ChunkIDs: in.ChunkIDs, ItemIDs: in.ItemIDs,
		Hash: in.Hash, Latency: in.Latency.Microseconds(), Reason: in.Reason, Text: in.Text})
}

// appendRun appends r to the runs journal.
func (s *Store) appendRun(r carryover.HookRun) error {
	return appendLine(s.journal, journalRun{Time: ms(r.Time), Session: r.SessionID, Project: r.Project,
		Event: r.Event, Latency: r.Latency.Microseconds(), Outcome: r.Outcome, Chars: r.Chars})
}

// appendLine appends v, as a line of JSON, to the journal at path, in one
// write: appends of processes running at once do not interleave. The
// leading newline parts the line from a torn one before it (a hook killed
// mid-append), which is then skipped alone.
func appendLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return appendJournal(path, append(append([]byte{'\n'}, line...), '\n'))
}

// journalFile is what Lstat says of a journal file, nil when there is
// none; one that is not a regular file (not carryover's: a link, a FIFO
// that would block an open) is an error wrapping ErrJournalForeign.
func journalFile(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: %w", path, ErrJournalForeign)
	}
	return fi, nil
}

// appendJournal appends b to the journal at path, which must be a regular
// file (or none yet). It holds the lock of the journal's directory, which
// a fold takes to rename the journal: a line is then written either
// before the rename, and read by the fold, or to the journal that follows.
func appendJournal(path string, b []byte) error {
	if unlock, err := lockDir(filepath.Dir(path)); err == nil {
		defer unlock()
	}
	fi, err := journalFile(path)
	if err != nil {
		return err
	}
	if fi != nil && fi.Size()+int64(len(b)) > maxJournal {
		return fmt.Errorf("%s: %w (%d bytes) until the store is next written", path, ErrJournalFull, fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// journalEntries are what a journal holds.
type journalEntries struct {
	runs       []carryover.HookRun
	injections []carryover.Injection
	reaches    []termReach
}

// Kinds of journal line readJournal parses.
const (
	journalRunLines = 1 << iota
	journalInjectionLines
	journalInjectionText // with journalInjectionLines: their text and reason too
	journalReachLines
)

// readJournal reads the entries of the journal file at path, of the kinds
// asked for and of session (of every session when it is ""), and the bytes
// they take (complete lines only: a line still being written is left). A
// missing file holds none; a line that does not parse is skipped.
func readJournal(path string, kinds int, session string) (journalEntries, int64, error) {
	e, n, _, err := scanJournal(path, kinds, session)
	return e, n, err
}

// journalBuf is the buffer a journal is read through, line by line: a
// journal of thousands of runs (a long turn of tool calls between two
// writes) is not held whole, which in a short process costs fresh memory's
// faults and a garbage collection.
const journalBuf = 32 << 10

// scanJournal is readJournal, and what Lstat said of the file (nil when
// there is none).
func scanJournal(path string, kinds int, session string) (journalEntries, int64, fs.FileInfo, error) {
	fi, err := journalFile(path)
	if fi == nil || err != nil {
		return journalEntries{}, 0, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return journalEntries{}, 0, nil, err
	}
	defer f.Close()
	p, err := newJournalParser(kinds, session)
	if err != nil {
		return journalEntries{}, 0, nil, err
	}
	r := bufio.NewReaderSize(io.LimitReader(f, 2*maxJournal), journalBuf)
	var n int64
	var long []byte // a line longer than the buffer, gathered
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if err != nil {
			// The end, and a line still being written, left for later.
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return p.out, n, fi, err
		}
		if long != nil {
			line, long = append(long, line...), nil
		}
		n += int64(len(line))
		p.line(line)
	}
}

// journalParser gathers the entries of a journal's lines.
type journalParser struct {
	kinds   int
	session string
	mine    []byte // the session's field, as encoding/json writes it
	head    int    // how far into a line the session's field starts, at most
	out     journalEntries
}

// newJournalParser parses lines of the kinds asked for and of session (of
// every session when it is "").
func newJournalParser(kinds int, session string) (*journalParser, error) {
	p := &journalParser{kinds: kinds, session: session}
	// A line of another session is passed over unparsed: encoding/json
	// escapes every quote inside a string, so the key and its value appear
	// unescaped only as a field, and it writes the fields in order: the
	// session follows the kind and the time, near the line's start.
	if session != "" {
		q, err := json.Marshal(session) // as the line was written
		if err != nil {
			return nil, err
		}
		p.mine = append([]byte(`"s":`), q...)
		p.head = len(p.mine) + 48
	}
	return p, nil
}

// line parses one complete line.
func (p *journalParser) line(line []byte) {
	kinds, session := p.kinds, p.session
	if bytes.HasPrefix(line, reachLine) {
		// A reach belongs to no session.
		if kinds&journalReachLines != 0 {
			p.out.reaches = append(p.out.reaches, parseReaches(line)...)
		}
		return
	}
	if len(line) <= 1 || p.mine != nil && !bytes.Contains(line[:min(len(line), p.head)], p.mine) {
		return
	}
	if bytes.HasPrefix(line, injectionLine) {
		if kinds&journalInjectionLines != 0 {
			if in, ok := parseInjection(line, kinds&journalInjectionText != 0); ok && (session == "" || in.SessionID == session) {
				p.out.injections = append(p.out.injections, in)
			}
		}
		return
	}
	if kinds&journalRunLines == 0 {
		return
	}
	var j journalRun
	if json.Unmarshal(line, &j) != nil || j.Time <= 0 || j.Event == "" {
		return
	}
	if j.Session != "" && carryover.ValidSessionID(j.Session) != nil || session != "" && j.Session != session {
		return
	}
	p.out.runs = append(p.out.runs, carryover.HookRun{Time: fromMS(j.Time), SessionID: j.Session, Project: j.Project,
		Event: j.Event, Latency: time.Duration(j.Latency) * time.Microsecond, Outcome: j.Outcome, Chars: j.Chars})
}

// parseInjection parses an injection's line, without its text and reason
// unless text is set (a recall reads every injection of its session, and
// the text is most of each line); false for a line that is not one.
func parseInjection(line []byte, text bool) (carryover.Injection, bool) {
	if !text {
		if i := bytes.Index(line, injectionText); i > 0 {
			line = append(line[:i:i], '}')
		}
	}
	var j journalInjection
	if json.Unmarshal(line, &j) != nil || j.Kind != "i" || j.Time <= 0 || j.Event == "" {
		return carryover.Injection{}, false
	}
	if !text {
		j.Reason = ""
	}
	if j.Session != "" && carryover.ValidSessionID(j.Session) != nil {
		return carryover.Injection{}, false
	}
	return carryover.Injection{Time: fromMS(j.Time), SessionID: j.Session, Project: j.Project, Event: j.Event,
		Window: j.Window, Chars: j.Chars, Tokens: j.Tokens, ChunkIDs: j.ChunkIDs, ItemIDs: j.ItemIDs, Hash: j.Hash,
		Latency: time.Duration(j.Latency) * time.Microsecond, Text: carryover.ClipInjectionText(j.Text), Reason: j.Reason}, true
}

// readJournals reads the entries, of the kinds asked for and of session
// (of every session when it is ""), of the journal and of a fold under
// way, oldest first, those of forgotten sessions left out. A process reads
// a file once for each such question while the file is unchanged (the
// same file, of the same size and time): a recall asks for its session's
// injections and, in two plans, for the words' reaches.
func (s *Store) readJournals(ctx context.Context, kinds int, session string) (journalEntries, error) {
	var all journalEntries
	var paths []string
	if kinds&journalRunLines != 0 {
		paths = append(paths, s.journal+foldingSuffix, s.journal)
	}
	if kinds&(journalInjectionLines|journalReachLines) != 0 {
		paths = append(paths, s.records+foldingSuffix, s.records)
	}
	for _, p := range paths {
		e, err := s.cachedJournal(p, kinds, session)
		if errors.Is(err, ErrJournalForeign) && (p == s.records || p == s.records+foldingSuffix) {
			// Not carryover's, and never written: the injections went to
			// the store, and the reaches are walked again.
			continue
		}
		if err != nil {
			return all, err
		}
		all.runs = append(all.runs, e.runs...)
		all.injections = append(all.injections, e.injections...)
		all.reaches = append(all.reaches, e.reaches...)
	}
	return dropForgotten(ctx, s.db, all)
}

// maxJournalReads bounds the answers a process keeps.
const maxJournalReads = 64

// journalRead is what a process read of a journal file last, for one
// question (kinds and session).
type journalRead struct {
	fi fs.FileInfo
	e  journalEntries
}

// cachedJournal is readJournal through the process's cache of answers.
func (s *Store) cachedJournal(path string, kinds int, session string) (journalEntries, error) {
	fi, err := journalFile(path)
	if fi == nil || err != nil {
		return journalEntries{}, err
	}
	key := journalKey(path, kinds, session)
	s.jmu.Lock()
	r, ok := s.jread[key]
	s.jmu.Unlock()
	if ok && os.SameFile(r.fi, fi) && r.fi.Size() == fi.Size() && r.fi.ModTime().Equal(fi.ModTime()) {
		return r.e, nil
	}
	// A recall asks for its session's injections, then its plans for the
	// words' reaches: one scan of the file answers both.
	scan := kinds
	if kinds&journalInjectionLines != 0 {
		scan |= journalReachLines
	}
	e, _, fi, err := scanJournal(path, scan, session)
	if fi == nil || err != nil {
		return journalEntries{}, err
	}
	answers := map[string]journalEntries{key: e}
	if scan != kinds {
		answers[journalKey(path, journalReachLines, "")] = journalEntries{reaches: e.reaches}
		e.reaches = nil
		answers[key] = e
	}
	s.jmu.Lock()
	if s.jread == nil || len(s.jread)+len(answers) > maxJournalReads {
		s.jread = map[string]journalRead{} // a long-lived process (mcp) asks of many sessions
	}
	for k, a := range answers {
		s.jread[k] = journalRead{fi: fi, e: a}
	}
	s.jmu.Unlock()
	return e, nil
}

// journalKey is the key of an answer in a process's cache of journal reads.
func journalKey(path string, kinds int, session string) string {
	return fmt.Sprintf("%s\x00%d\x00%s", path, kinds, session)
}

// dropForgotten leaves out the entries of forgotten sessions.
func dropForgotten(ctx context.Context, q queryer, e journalEntries) (journalEntries, error) {
	gone := map[string]bool{}
	var err error
	drop := func(session string) bool {
		if session == "" || err != nil {
			return false
		}
		g, ok := gone[session]
		if !ok {
			g, err = forgotten(ctx, q, session)
			gone[session] = g
		}
		return g
	}
	e.runs = slices.DeleteFunc(e.runs, func(r carryover.HookRun) bool { return drop(r.SessionID) })
	e.injections = slices.DeleteFunc(e.injections, func(in carryover.Injection) bool { return drop(in.SessionID) })
	return e, err
}

// foldJournal inserts the journals' runs and injections into hook_runs
// and injections, and their reaches into term_reach, within tx; call done
// once tx is committed, which removes the journals' folded parts. Each
// journal is first renamed, so that hooks appending meanwhile start a new
// one; a fold that was cut short (its renamed file left) is finished
// first, and a journal that cannot be renamed now (Windows, while a hook
// appends) waits for the next fold.
func (s *Store) foldJournal(ctx context.Context, tx *sql.Tx) (done func(), err error) {
	var e journalEntries
	type folded struct {
		journal, folding string
		read             int64
	}
	var folds []folded
	for _, journal := range []string{s.journal, s.records} {
		folding, ok := startFold(journal)
		if !ok {
			continue
		}
		je, n, err := readJournal(folding, journalRunLines|journalInjectionLines|journalInjectionText|journalReachLines, "")
		if err != nil {
			return nil, err
		}
		e.runs, e.injections, e.reaches = append(e.runs, je.runs...), append(e.injections, je.injections...), append(e.reaches, je.reaches...)
		folds = append(folds, folded{journal, folding, n})
	}
	if len(folds) == 0 {
		return func() {}, nil
	}
	if e, err = dropForgotten(ctx, tx, e); err != nil {
		return nil, err
	}
	runs, injections := e.runs[max(0, len(e.runs)-maxFold):], e.injections[max(0, len(e.injections)-maxFold):]
	// A fold cut short is undone whole, so that the next one does not add
	// its first runs twice; the transaction goes on without it.
	if _, err := tx.ExecContext(ctx, `SAVEPOINT fold`); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if err = insertRun(ctx, tx, r); err != nil {
			break
		}
	}
	for _, in := range injections {
		if err != nil {
			break
		}
		_, err = insertInjection(ctx, tx, in)
	}
	if err == nil {
		err = foldReaches(ctx, tx, e.reaches)
	}
	if err != nil {
		tx.ExecContext(context.WithoutCancel(ctx), `ROLLBACK TO fold`)
		tx.ExecContext(context.WithoutCancel(ctx), `RELEASE fold`)
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE fold`); err != nil {
		return nil, err
	}
	return func() {
		for _, f := range folds {
			endFold(f.journal, f.folding, f.read)
		}
	}, nil
}

// startFold renames the journal for a fold, under its directory's lock,
// and returns the name to read; false when there is nothing to fold. A
// fold cut short left its renamed file, which is read again. Only a
// journal that is a regular file is moved or read: anything else there is
// not carryover's, and is left alone.
func startFold(journal string) (string, bool) {
	folding := journal + foldingSuffix
	switch fi, err := journalFile(folding); {
	case err != nil:
		return "", false
	case fi != nil:
		return folding, true
	}
	if fi, err := journalFile(journal); fi == nil || err != nil {
		return "", false
	}
	unlock, err := lockDir(filepath.Dir(journal))
	if err != nil {
		return "", false
	}
	err = replace.File(journal, folding)
	unlock()
	return folding, err == nil
}

// endFold removes a folded journal. Appends take the directory's lock
// the rename took, so none reaches the renamed file after it was read;
// where that lock could not be had, a hook that opened the journal before
// the rename may have appended after the read: those lines go back to the
// journal, for the next fold.
func endFold(journal, folding string, read int64) {
	if b, err := os.ReadFile(folding); err == nil && int64(len(b)) > read {
		// Whole lines only: a torn one is dropped.
		tail := b[read:]
		tail = tail[:bytes.LastIndexByte(tail, '\n')+1]
		if len(tail) > 0 && appendJournal(journal, tail) != nil {
			return // kept: the next fold reads it again
		}
	}
	if replace.Remove(folding) != nil {
		// Still open elsewhere (Windows): emptied, so that the next fold
		// does not add its runs again.
		os.Truncate(folding, 0)
	}
}

func insertRun(ctx context.Context, tx *sql.Tx, r carryover.HookRun) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO hook_runs
		(time_ms, session_id, project, event, latency_us, outcome, chars) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		ms(r.Time), r.SessionID, r.Project, r.Event, r.Latency.Microseconds(), r.Outcome, r.Chars)
	return err
}

// mergeInjections adds the journal's injections (oldest first, of the
// session the rows were read for) to rows read from the table (newest
// first), newest first, at most lim (0: no limit). Each list keeps its
// order.
func mergeInjections(rows, journal []carryover.Injection, lim int) []carryover.Injection {
	if len(journal) == 0 {
		return rows
	}
	mine := slices.Clone(journal)
	slices.Reverse(mine)
	out := make([]carryover.Injection, 0, len(rows)+len(mine))
	for len(rows) > 0 || len(mine) > 0 {
		if len(mine) == 0 || len(rows) > 0 && ms(rows[0].Time) >= ms(mine[0].Time) {
			out, rows = append(out, rows[0]), rows[1:]
		} else {
			out, mine = append(out, mine[0]), mine[1:]
		}
		if lim > 0 && len(out) == lim {
			break
		}
	}
	return out
}

// mergeRuns adds the journal's runs (those f selects) to rows read from
// the table, newest first, at most f.Limit.
func mergeRuns(rows, journal []carryover.HookRun, f carryover.HookRunFilter) []carryover.HookRun {
	for _, r := range journal {
		if f.Project != "" && r.Project != f.Project || f.SessionID != "" && r.SessionID != f.SessionID ||
			!f.Since.IsZero() && ms(r.Time) < ms(f.Since) {
			continue
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b carryover.HookRun) int { return cmp.Compare(ms(b.Time), ms(a.Time)) })
	if f.Limit > 0 && len(rows) > f.Limit {
		rows = rows[:f.Limit]
	}
	return rows
}

// Problems CheckJournal reports.
var (
	// ErrJournalForeign: a journal path holds something else than a
	// regular file, which carryover neither writes through nor moves.
	ErrJournalForeign = errors.New("not a regular file")
	// ErrJournalFull: the journal is (nearly) full: runs are dropped, and
	// injections written to the store, until a hook that writes the store
	// folds it in.
	ErrJournalFull = errors.New("full")
)

// JournalError is a journal beside the store that the hooks cannot use.
type JournalError struct {
	Path string
	// Records: the journal of injections and reaches, not of runs.
	Records bool
	Err     error // wraps ErrJournalForeign or ErrJournalFull
}

func (e *JournalError) Error() string { return e.Err.Error() }
func (e *JournalError) Unwrap() error { return e.Err }

// CheckJournal reports the first journal beside the store db that the
// hooks cannot use, as a *JournalError; nil when there is none or they are
// fine.
func CheckJournal(db string) error {
	for _, p := range JournalFiles(db) {
		fi, err := journalFile(p)
		if err == nil && fi != nil && fi.Size() > maxJournal*9/10 {
			err = fmt.Errorf("%s: %w (%d bytes)", p, ErrJournalFull, fi.Size())
		}
		if err != nil {
			return &JournalError{Path: p, Records: strings.HasPrefix(p, recordsJournal(db)), Err: err}
		}
	}
	return nil
}
