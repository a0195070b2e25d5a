// Package exportfile reads and writes carryover's export format: JSON
// Lines, one record per line, for moving an archive between machines and
// for backups. Export masks secrets again; import masks them before
// anything is stored, and recognises what the store already holds by the
// same identity rules as replication (see the root package's identity.go),
// so that importing twice adds nothing.
package exportfile

import "time"

// The export format: JSON Lines, one record per line, each with a "type".
// The first line is the header; then, per session, its session record,
// chunks, items, compactions, raw lines, injections and notes; then audit
// records and notes of sessions that were never archived. Ids are the
// exporting store's: import maps them to its own.
//
// Version 2 added the raw lines ("raw" records); version 1 files, which
// have none, are still read.
const (
	// Format names the file format in its header.
	Format = "carryover-export"
	// Version is the newest format version this package writes and reads.
	// Version 2 added the text and reason of injections, and raw lines;
	// version 3 a session's parent, cwd and branch. Older files are still
	// read (their records have none of these).
	Version = 3
)

// Header is the first record of every file.
type Header struct {
	Type      string    `json:"type"` // "header"
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Created   time.Time `json:"created"`
	Carryover string    `json:"carryover"`
	// Redacted says whether secrets were masked (always, since format 1).
	Redacted bool `json:"redacted"`
}

// Ingest is a session's ingest state, so that an imported session resumes
// from where the exporting store was.
type Ingest struct {
	Path   string `json:"path"`
	FileID string `json:"file_id"`
	Offset int64  `json:"offset"`
	Line   int    `json:"line"`
	Cursor []byte `json:"cursor,omitempty"`
}

// SessionRecord starts a session's records.
type SessionRecord struct {
	Type           string    `json:"type"` // "session"
	ID             string    `json:"id"`
	Parent         string    `json:"parent,omitempty"`
	Project        string    `json:"project"`
	Cwd            string    `json:"cwd,omitempty"`
	Branch         string    `json:"branch,omitempty"`
	TranscriptPath string    `json:"transcript_path,omitempty"`
	Version        string    `json:"version,omitempty"`
	Title          string    `json:"title,omitempty"`
	Started        time.Time `json:"started"`
	Updated        time.Time `json:"updated"`
	Windows        int       `json:"windows"`
	Turns          int       `json:"turns"`
	Owner          string    `json:"owner,omitempty"`
	Team           string    `json:"team,omitempty"`
	Ingest         *Ingest   `json:"ingest,omitempty"`
}

// ChunkRecord is one chunk; ID is the exporting store's.
type ChunkRecord struct {
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

// ItemRecord is one item; ID is the exporting store's.
type ItemRecord struct {
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

// CompactionRecord is one compaction of a session.
type CompactionRecord struct {
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

// InjectionRecord is one audit record; its ids are the exporting store's.
type InjectionRecord struct {
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
	Text      string    `json:"text,omitempty"`   // since version 2
	Reason    string    `json:"reason,omitempty"` // since version 2
}

// NoteRecord is one note.
type NoteRecord struct {
	Type    string    `json:"type"` // "note"
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Project string    `json:"project"`
	Kind    string    `json:"kind"`
	Text    string    `json:"text"`
}

// RawRecord is one line of a session's raw archive (format 2): the
// transcript line's JSON after masking, with its place in the transcript.
// Text holds it when it is valid UTF-8 (a JSON string cannot hold other
// bytes); Data, base64, otherwise.
type RawRecord struct {
	Type    string `json:"type"` // "raw"
	Session string `json:"session"`
	Line    int    `json:"line"`
	Offset  int64  `json:"offset"`
	Size    int    `json:"size"`
	Text    string `json:"text,omitempty"`
	Data    []byte `json:"data,omitempty"`
}
