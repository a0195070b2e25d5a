// Package carryover archives Claude Code transcripts into a searchable local
// memory and restores what a compaction summary lost.
//
// The root package holds the vocabulary shared by every other package: the
// archived units (Session, Chunk, Item, Compaction), the audit records
// (Injection), notes, search queries and hits, and the Store contract that
// the SQLite (and later PostgreSQL) backends satisfy. It does no I/O.
package carryover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Session is one Claude Code session transcript (one .jsonl file). A
// subagent's transcript is a session of its own whose Parent is the
// session that ran it; its id is "<parent>/agent-<id>" (Claude Code 2.1's
// <parent>/subagents/agent-<id>.jsonl) or, for the older flat layout,
// "agent-<id>".
type Session struct {
	ID string
	// Parent is the session that ran this one as a subagent; "" for a
	// top-level session.
	Parent string
	// Project is the root of the git repository the session ran in (the
	// main worktree's, for every worktree of it), else its directory. A
	// session keeps the project it was first archived under.
	Project string
	// Cwd is the directory the session started in, Branch the git branch
	// its transcript last reported (they tell a project's worktrees
	// apart).
	Cwd            string
	Branch         string
	TranscriptPath string
	Version        string // Claude Code version that wrote it
	Title          string // first user prompt or summary title, short
	Started        time.Time
	Updated        time.Time
	Windows        int // compactions seen so far (context window index of the tail)
	Turns          int // real user turns seen so far
	Chunks         int // chunks it holds, shared ones included (filled by the store on read)
	Subagents      int // subagent sessions archived under it (filled by the store on read)
	// Shared counts the chunks of Chunks that another session stored and
	// this one shares (filled by the store on read): a total over sessions
	// counts each stored chunk once by Chunks - Shared.
	Shared int
	// Owner is who archived it (the OS user or a configured identity) and
	// Team, when not "", the team it is shared with; private otherwise.
	// The embedded store keeps them; the PostgreSQL store enforces them.
	Owner string
	Team  string
}

// IngestState remembers how far a session's transcript has been archived,
// so each hook reads only what was appended since the last one.
type IngestState struct {
	SessionID string
	Path      string
	// FileID identifies the file's content: a rewrite or truncation changes
	// it, and ingest then starts again from 0 (content hashes prevent
	// duplicates).
	FileID string
	Offset int64 // byte offset just past the last line consumed
	Line   int   // 1-based number of the last line consumed
	// Cursor is the chunker's carried state (turn, window, sequence...),
	// opaque to the store.
	Cursor []byte
}

// Chunk is the retrieval unit: one or more transcript steps (an assistant
// message with its tool calls and their results, or a user prompt) packed
// into a size-bounded text. Its turn is kept as its parent for context.
type Chunk struct {
	ID        int64
	SessionID string
	Project   string
	Seq       int // order within the session, from 0
	Turn      int // index of its turn in the session, from 0
	Window    int // number of compactions before it
	FirstLine int // 1-based transcript line range
	LastLine  int
	Start     time.Time
	End       time.Time
	Prompt    string   // the turn's user prompt, shortened
	Summary   string   // extractive summary, at most 300 characters
	Text      string   // rendered content
	Tools     []string // tool names used, in order of first use
	Files     []string // files touched
	Commands  []string // shell commands run
	Errors    []string // error texts seen
	Sidechain bool     // from a subagent
	AgentID   string
	Hash      string // content hash; unique per project
}

// ItemKind classifies an extracted fact.
type ItemKind string

// Item kinds, in the order a restore block tends to present them.
const (
	KindGoal       ItemKind = "goal"       // what the user asked for
	KindTodo       ItemKind = "todo"       // the latest todo list state
	KindDecision   ItemKind = "decision"   // a choice and its reason
	KindConstraint ItemKind = "constraint" // user "always/never/don't/must"
	KindError      ItemKind = "error"      // an error seen (Resolved when a fix followed)
	KindFix        ItemKind = "fix"        // the command or edit that resolved an error
	KindFileEdit   ItemKind = "file_edit"  // a file changed, with the turn's purpose
	KindCommand    ItemKind = "command"    // a shell command that succeeded
	KindMarker     ItemKind = "marker"     // IMPORTANT:/REMEMBER:/NOTE:/CRITICAL:/TODO:
	KindValue      ItemKind = "value"      // settings, names and UI strings written; ids, commits, tallies reported
	KindNote       ItemKind = "note"       // remembered explicitly (notes)
	KindSpec       ItemKind = "spec"       // a spec's constraints, no-gos, out of scope, edge cases, as a tool printed them
	// KindInputs holds the specific identifiers (paths, names, ids,
	// values) the model typed into the tool calls of one chunk, in order:
	// the working set a restore gives back.
	KindInputs ItemKind = "inputs"
)

// ItemKinds lists the kinds of facts extracted from transcripts, those a
// search can filter by (KindInputs is the working set, not a fact).
var ItemKinds = []ItemKind{KindGoal, KindTodo, KindDecision, KindConstraint, KindError, KindFix, KindFileEdit, KindCommand, KindMarker, KindValue, KindSpec}

// ItemKindNames lists ItemKinds for help texts: "goal, todo, …".
func ItemKindNames() string {
	ks := make([]string, len(ItemKinds))
	for i, k := range ItemKinds {
		ks[i] = string(k)
	}
	return strings.Join(ks, ", ")
}

// Item is a classified fact extracted from a chunk.
type Item struct {
	ID        int64
	SessionID string
	ChunkSeq  int   // Seq of the chunk it came from (same session)
	ChunkID   int64 // filled by the store
	Kind      ItemKind
	Text      string // the fact itself, verbatim where it matters (paths, commands, errors)
	Detail    string // context: an error's fix, an edit's purpose, a decision's reason
	Key       string // dedup key: NFKC-normalised, kind-aware
	Turn      int
	Window    int
	Line      int // 1-based transcript line
	Time      time.Time
	Weight    float64 // type weight × marker boost, before recency/cycle decay
	Resolved  bool    // errors: a later fix was seen
	Count     int     // times seen (store-maintained)
}

// Compaction is one compaction of a session, read from the transcript's
// compact_boundary line and the summary that follows it.
type Compaction struct {
	SessionID  string
	Window     int // the context window index that starts after it (1 for the first)
	Trigger    string
	PreTokens  int
	PostTokens int
	Line       int // 1-based line of the compact_boundary
	Time       time.Time
	Summary    string // the kept summary text (isCompactSummary line)
}

// Injection is an audit record of text carryover put into Claude's context
// (or into the summariser's instructions).
type Injection struct {
	ID        int64
	Time      time.Time
	SessionID string
	Project   string
	Event     string // SessionStart:compact, UserPromptSubmit, PreCompact, ...
	Window    int
	Chars     int
	Tokens    int // estimate
	ChunkIDs  []int64
	ItemIDs   []int64
	Hash      string // hash of the injected text
	Latency   time.Duration
	// Text is what was injected, exactly (secrets masked), cut by the
	// store to InjectionTextCap; "" in records from before it was kept.
	Text string
	// Reason says briefly why it was injected: what a restore held, which
	// scores let a recall through.
	Reason string
}

// InjectionTextCap bounds the text a store keeps of one injection: a
// restore or recall is a few KiB by default, and a budget set far higher
// should not grow the audit log by as much on every prompt.
const InjectionTextCap = 16 << 10

// ClipInjectionText cuts s to at most InjectionTextCap bytes, at a line
// end when one is near, and says how much was cut. It is idempotent, so
// a text copied between stores stays the same.
func ClipInjectionText(s string) string {
	if len(s) <= InjectionTextCap {
		return s
	}
	// Room for the note with the longest number it can hold.
	const noteRoom = len("\n[… 18446744073709551615 more bytes not kept]")
	cut := InjectionTextCap - noteRoom
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= cut-512 {
		cut = nl
	}
	kept := strings.TrimRight(s[:cut], "\n")
	return fmt.Sprintf("%s\n[… %d more bytes not kept]", kept, len(s)-len(kept))
}

// Note is something stored explicitly (remember/state), boosted in restores.
type Note struct {
	ID        int64
	Time      time.Time
	SessionID string
	Project   string
	Kind      string // decision|constraint|note|state
	Text      string
}

// Blank reports whether text has nothing to read: it is empty or holds
// only white space and control or format characters (a bell, an escape,
// a zero-width space). A note of it is refused as an empty one is.
func Blank(text string) bool {
	return strings.IndexFunc(text, func(r rune) bool {
		return !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r)
	}) < 0
}

// Query selects chunks for full-text search.
type Query struct {
	Text      string
	Project   string // "" for all projects
	SessionID string // "" for all sessions
	// BeforeWindow, when > 0, keeps only chunks of earlier context windows
	// (Window < BeforeWindow): what the current window no longer shows.
	BeforeWindow int
	Since        time.Time
	// File, when set, keeps only chunks that touched a file whose path
	// contains it.
	File  string
	Limit int
}

// Hit is a chunk found by a search, with its score (higher is better).
type Hit struct {
	Chunk Chunk
	// Score ranks the hits: BM25 fused with the vector similarity.
	Score float64
	// BM25 is the full-text part alone (FTS5's bm25, negated: higher is
	// better, on the scale package rank defines for every store): a
	// relevance scale that does not depend on the other hits.
	BM25 float64
}

// SessionFilter selects sessions.
type SessionFilter struct {
	Project string
	// Parent keeps the subagents of that session; TopLevel keeps the
	// sessions that are no subagent's.
	Parent   string
	TopLevel bool
	// IDPrefix keeps the sessions whose id starts with it.
	IDPrefix string
	Limit    int
	// NoCounts leaves each Session's Chunks, Shared and Subagents zero:
	// counting them reads every chunk's index entry, which a caller that
	// wants only ids (a shortener over a large archive) need not pay.
	NoCounts bool
}

// ItemFilter selects items.
type ItemFilter struct {
	SessionID    string
	Project      string
	Kinds        []ItemKind
	BeforeWindow int // when > 0: Window < BeforeWindow
	FromWindow   int // when > 0: Window >= FromWindow
	// ChunkSeqs, when set, keeps the items of those chunks of the session
	// (Item.ChunkSeq, from 0): those of a chunk read long ago, without
	// reading every newer one.
	ChunkSeqs []int
	Limit     int
}

// ChunkPlace is where a session holds a chunk it shares with the session
// that stored it (a resumed session repeats the old one's lines): its own
// sequence number, turn, window and lines.
type ChunkPlace struct {
	Seq, Turn, Window, FirstLine, LastLine int
}

// Put gives c, read as its storing session has it, session's place.
func (p ChunkPlace) Put(c *Chunk, session string) {
	c.SessionID, c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine = session, p.Seq, p.Turn, p.Window, p.FirstLine, p.LastLine
}

// ChunkFilter selects chunks of one session in sequence order.
type ChunkFilter struct {
	SessionID    string
	Turn         int // -1 for all turns
	BeforeWindow int // when > 0: Window < BeforeWindow
	FromSeq      int // Seq >= FromSeq
	// FromLine and ToLine, when > 0, keep chunks overlapping that
	// transcript line range.
	FromLine int
	ToLine   int
	IDs      []int64
	Newest   bool // newest first (with Limit: the last chunks)
	Limit    int
}

// Batch is what one ingest step writes, atomically: new chunks, items and
// compactions of a session, and the ingest state to resume from.
type Batch struct {
	Session     Session
	Chunks      []Chunk
	Items       []Item
	Compactions []Compaction
	State       IngestState
	// Redactions counts the secrets masked in this batch, by detector kind
	// (added to the store's running totals).
	Redactions map[string]int
	// Raw holds transcript lines for the raw archive (see RawLine):
	// consecutive, in order. Apply stores them after the session's last
	// stored line, leaving stored lines alone; with RawReplace it replaces
	// every stored line from Raw[0].Line on instead (an ingest that read the
	// transcript again from the start).
	Raw        []RawLine
	RawReplace bool
	// DeferPassages leaves the raw lines' passages (PassageSearcher) to
	// be indexed later (PassageIndexer), not in this write: a cold
	// archive in PreCompact is on the user's wait.
	DeferPassages bool
}

// HookRun records one hook invocation: what ran, how long it took and how
// it ended, for stats. Written best effort, never on the critical path of
// an injection.
type HookRun struct {
	ID        int64
	Time      time.Time
	SessionID string
	Project   string
	Event     string // SessionStart:compact, UserPromptSubmit, PreCompact, ...
	Latency   time.Duration
	Outcome   string // ok | noop | error | timeout | panic
	Chars     int    // characters written to Claude Code (0 when none)
}

// HookRunFilter selects hook runs, newest first.
type HookRunFilter struct {
	Project   string
	SessionID string
	Since     time.Time
	Limit     int
}

// PruneFilter selects whole sessions to remove. Every set field must
// match; at least one must be set.
type PruneFilter struct {
	// UpdatedBefore keeps sessions last updated at or after it.
	UpdatedBefore time.Time
	Project       string
	SessionID     string
	// Forget also records SessionID (which must be set) as forgotten, in
	// the same transaction: Apply then refuses the session with
	// ErrForgotten, so that a later ingest, import or copy does not bring
	// it back. Store.Unforget removes the record.
	Forget bool
	// DryRun reports what would go without removing anything.
	DryRun bool
}

// ForgottenKey is what a store records of a forgotten session: a hash of
// its id, so that the store keeps no trace that names the session.
func ForgottenKey(sessionID string) string {
	h := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(h[:])
}

// PruneReport says what a prune (or forget) removed, or would remove.
type PruneReport struct {
	Sessions []string
	Chunks   int
	// Shared counts the chunks of these sessions that other sessions hold
	// too (a resumed session repeats the lines of the one it resumed):
	// they are left to those sessions, not removed, and not in Chunks.
	Shared      int
	Items       int
	Compactions int
	Injections  int
	Notes       int
}

// TokenEstimate approximates the tokens of a text (about 4 bytes each), the
// rule of thumb Claude Code's own budgets use.
func TokenEstimate(s string) int {
	return (len(s) + 3) / 4
}

// ShortID is the short form of a session id shown to people and models:
// a UUID's first 8 characters, else at most 12; a subagent's is its
// parent's short form and its own name ("7f3c2a9e/agent-a1b2c3").
// IDShortener gives forms that stay unique in an archive.
func ShortID(id string) string {
	if parent, agent, ok := strings.Cut(id, "/"); ok {
		return ShortID(parent) + "/" + agent
	}
	if i := strings.IndexByte(id, '-'); i == 8 {
		return id[:8]
	}
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Validate rejects batches whose parts name another session or project, and
// rows that would break deduplication. Parts may leave the session empty.
// Every store checks it before writing.
func (b Batch) Validate() error {
	id := b.Session.ID
	if id == "" {
		return errors.New("session id is empty")
	}
	if b.Session.Parent == id {
		return fmt.Errorf("session %q is its own parent", id)
	}
	same := func(what, got string) error {
		if got != "" && got != id {
			return fmt.Errorf("%s belongs to session %q, batch is for %q", what, got, id)
		}
		return nil
	}
	for i := range b.Chunks {
		c := &b.Chunks[i]
		if err := same(fmt.Sprintf("chunk %d", c.Seq), c.SessionID); err != nil {
			return err
		}
		if c.Project != "" && c.Project != b.Session.Project {
			return fmt.Errorf("chunk %d belongs to project %q, session to %q", c.Seq, c.Project, b.Session.Project)
		}
		if c.Hash == "" {
			return fmt.Errorf("chunk %d has no hash", c.Seq)
		}
	}
	for i := range b.Items {
		it := &b.Items[i]
		if err := same("item "+it.Key, it.SessionID); err != nil {
			return err
		}
		if it.Key == "" || it.Kind == "" {
			return fmt.Errorf("item at line %d has no kind or key", it.Line)
		}
	}
	for i := range b.Compactions {
		if err := same(fmt.Sprintf("compaction %d", b.Compactions[i].Window), b.Compactions[i].SessionID); err != nil {
			return err
		}
	}
	for i := range b.Raw {
		l := &b.Raw[i]
		switch {
		case l.Line < 1:
			return fmt.Errorf("raw line %d: lines are numbered from 1", l.Line)
		case i > 0 && l.Line != b.Raw[i-1].Line+1:
			return fmt.Errorf("raw line %d follows line %d: raw lines must be consecutive", l.Line, b.Raw[i-1].Line)
		case bytes.IndexByte(l.Text, '\n') >= 0:
			return fmt.Errorf("raw line %d holds a newline", l.Line)
		}
	}
	return same("ingest state", b.State.SessionID)
}

// ValidSessionID rejects ids that could not come from Claude Code and could
// be used to escape a directory (session ids name files: pending marks,
// status line state).
func ValidSessionID(id string) error {
	if id == "" || len(id) > maxSessionID || strings.ContainsAny(id, "/\\\x00") || strings.Contains(id, "..") {
		return fmt.Errorf("invalid session_id %s", quoteID(id))
	}
	return nil
}

// maxSessionID bounds a session id, in bytes; Claude Code's are UUIDs.
const maxSessionID = 200

// quoteID quotes an id for an error, the start of one that is too long
// to be an id: errors are logged, and a payload's id can be megabytes.
func quoteID(id string) string {
	if len(id) <= maxSessionID {
		return strconv.Quote(id)
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", id[:cut], len(id))
}

// ValidArchivedID is ValidSessionID for the ids the archive holds, which
// include those of subagents: "<session>/agent-<id>", each part valid.
func ValidArchivedID(id string) error {
	parent, agent, ok := strings.Cut(id, "/")
	if !ok {
		return ValidSessionID(id)
	}
	if ValidSessionID(parent) != nil || ValidSessionID(agent) != nil || !strings.HasPrefix(agent, "agent-") {
		return fmt.Errorf("invalid session_id %s", quoteID(id))
	}
	return nil
}
