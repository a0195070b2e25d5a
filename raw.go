package carryover

// RawLine is one line of a session's transcript as the raw archive keeps
// it. Chunks render and truncate what they hold, and Claude Code deletes
// transcripts after a while (cleanupPeriodDays); the raw archive keeps every
// line's exact JSON, with its secrets masked, for as long as the session
// is archived.
type RawLine struct {
	Line int // 1-based line number in the transcript
	// Offset and Size place the line in the transcript: its first byte and
	// its length with the newline, before masking.
	Offset int64
	Size   int
	// Text is the line after masking, without its newline: the JSON object
	// Claude Code wrote, or whatever bytes a damaged line held (empty for a
	// blank line, and for a line longer than the raw archive keeps).
	Text []byte
}
