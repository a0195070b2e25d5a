package retrieve

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ident"
)

// File recall: when the model reads or edits a file that this session
// changed before its last compaction, or that an open error of that time
// names, what was done to it and why. The summary keeps that a file was
// changed, rarely what changed; the model otherwise reads the file again
// to find out, or undoes its own work.
const (
	// FileRecallBudget is the most one file recall injects.
	FileRecallBudget = 600
	// FileRecallMinNovel is how many identifiers (names, paths, values of
	// the edits and their reasons) that neither the compaction summary
	// nor the tool call itself shows a file's recall must carry to be
	// made without an open error, calibrated leave-one-session-out with
	// `carryover bench jit`. A recall of edits the summary describes, or
	// whose lines the Read just returned, tells the model nothing: counted
	// against the summary alone, the false recalls were re-reads of whole
	// files that showed every line the recall quoted, and once the call's
	// own lines count, one new identifier is enough.
	FileRecallMinNovel = 1
	// fileRecallChunks bounds the chunks of earlier windows scanned for
	// the file's edits, newest first.
	fileRecallChunks = 400
	// fileRecallEdits is how many edits are described.
	fileRecallEdits = 3
	// fileRecallScan bounds the edits compared with what is known, newest
	// first: each identifier is looked for in the whole Read.
	fileRecallScan = 40
	// maxShown is how much of what the call showed is compared: a Read
	// returns at most about this much.
	maxShown = 512 << 10
)

// FileRequest describes a file tool call (Read, Edit, Write, MultiEdit).
type FileRequest struct {
	SessionID string
	Project   string
	// Window is the session's current context window (> 0: a session that
	// never compacted has nothing to recall).
	Window int
	File   string // the path the tool call names, absolute or relative to Project
	// Exclude holds the items already recalled into this context: a file
	// is recalled once per context window.
	Exclude map[int64]bool
	// ShownItems and ShownChunks are what this window's restore showed:
	// a recall that would only repeat them is not made.
	ShownItems, ShownChunks map[int64]bool
	// MinNovel overrides FileRecallMinNovel when > 0 (calibration sweeps).
	MinNovel int
	// Shown is what the tool call itself put in front of the model: what
	// it typed (an Edit's old and new text) and, for a Read, the lines it
	// got back. An identifier it holds is no news: a Read of the whole
	// file shows every line an earlier edit added that is still there.
	Shown string
}

// fileEdit is one edit of the file found in an earlier window's chunk.
type fileEdit struct {
	chunk       int64
	first, last int      // the chunk's transcript lines
	why         string   // the assistant's words before the edit
	diff        []string // what it changed, added lines first
}

// FileRecall returns what the session did to the file before its last
// compaction: how many edits, the task, the last edits' reasons and diff
// heads, and the errors about it still open then, within FileRecallBudget.
// The block's first item id is the file's (or, without one, its open
// error's), which Exclude takes to keep the recall to once per window.
func FileRecall(ctx context.Context, st carryover.Store, req FileRequest) (Block, error) {
	if req.Window <= 0 || req.File == "" {
		return Block{}, nil
	}
	minNovel := req.MinNovel
	if minNovel <= 0 {
		minNovel = FileRecallMinNovel
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: req.SessionID,
		Kinds: []carryover.ItemKind{carryover.KindFileEdit, carryover.KindError}})
	if err != nil {
		return Block{}, fmt.Errorf("file recall: %w", err)
	}
	rel := relPath(filepath.Clean(req.File), req.Project)
	var file carryover.Item
	var open []carryover.Item
	for _, it := range items {
		switch {
		case it.Kind == carryover.KindFileEdit && samePath(it.Text, rel, req.Project):
			file = it
		case it.Kind == carryover.KindError && !it.Resolved && it.Window < req.Window && mentions(it, rel):
			open = append(open, it)
		}
	}
	// What the restore showed of an open error is its first lines: one
	// that names the file past them is news still.
	open = slices.DeleteFunc(open, func(it carryover.Item) bool { return req.ShownItems[it.ID] })
	deep, err := deepOpenErrors(ctx, st, req, rel, items)
	if err != nil {
		return Block{}, err
	}
	open = append(open, deep...)
	key := file.ID
	if key == 0 && len(open) > 0 {
		key = open[0].ID
	}
	if key == 0 || req.Exclude[key] {
		return Block{}, nil
	}
	var edits []fileEdit
	if file.ID != 0 {
		if edits, err = earlierEdits(ctx, st, req, file.Text); err != nil {
			return Block{}, err
		}
	}
	total := len(edits)
	edits = slices.DeleteFunc(edits, func(e fileEdit) bool { return req.ShownChunks[e.chunk] })
	summary, err := compactionSummary(ctx, st, req.SessionID, req.Window)
	if err != nil {
		return Block{}, err
	}
	nov := newNovelty(summary, req.Project)
	shown := req.Shown[:min(len(req.Shown), maxShown)]
	known := map[string]bool{}
	edits, novel := novelEdits(edits, func(id string) bool {
		k, ok := known[id]
		if !ok {
			k = nov.seenIdent(id) || shownIdent(shown, id)
			known[id] = k
		}
		return k
	}, rel)
	if len(open) == 0 && (novel < minNovel || len(edits) == 0) {
		return Block{}, nil
	}
	return renderFileRecall(rel, file, total, edits, open), nil
}

// novelEdits keeps the newest edits' lines that hold an identifier
// neither the summary nor the call itself showed (known), and counts
// those identifiers (the file's own path aside). An edit none of whose
// lines is left is dropped, whatever its reason names: the model has the
// change in front of it. One without lines is kept for a reason that
// names something new.
func novelEdits(edits []fileEdit, known func(id string) bool, rel string) ([]fileEdit, int) {
	novel := map[string]bool{}
	fresh := func(s string) bool {
		found := false
		for _, id := range ident.All(s) {
			if ident.Boilerplate(id) || strings.HasSuffix(rel, id) || known(id) {
				continue
			}
			novel[id], found = true, true
		}
		return found
	}
	var out []fileEdit
	for _, e := range edits[:min(len(edits), fileRecallScan)] {
		if len(out) == fileRecallEdits {
			break
		}
		var keep []string
		for _, l := range e.diff {
			if fresh(l) {
				keep = append(keep, l)
			}
		}
		if len(e.diff) > 0 && len(keep) == 0 {
			continue // every line it changed is known: its reason alone is old news
		}
		e.diff = keep
		if !fresh(e.why) && len(keep) == 0 {
			continue // the summary has said it all
		}
		// Two edits of one step often share their reason and lines.
		if slices.ContainsFunc(out, func(o fileEdit) bool { return o.why == e.why && slices.Equal(o.diff, e.diff) }) {
			continue
		}
		out = append(out, e)
	}
	return out, len(novel)
}

// refSuffix is what may follow a name to point into it: a line (":12"),
// an arity ("/2"), an anchor ("#3").
var refSuffix = regexp.MustCompile(`([:/#]\d+)+$`)

// shownIdent reports whether the call showed an identifier: as it is, or
// as the name a line, arity or anchor suffix points into.
func shownIdent(shown, id string) bool {
	if shown == "" {
		return false
	}
	if strings.Contains(shown, id) {
		return true
	}
	base := refSuffix.ReplaceAllString(id, "")
	return base != id && len(base) >= 4 && strings.Contains(shown, base)
}

// deepOpenErrors finds the errors of earlier windows left open that name
// the file only past their first lines (a test log's failure, a linter's
// report), which an error item does not hold. It reads back the whole
// output of the newest DeepOpenErrors open errors from the raw archive
// (ErrorOutputs), not the passages, which may not be indexed yet right
// after a compaction. Each is returned as its item with the error line
// that names the file as its text; an error line holds an error word, so
// an output that merely lists the file among others does not count.
func deepOpenErrors(ctx context.Context, st carryover.Store, req FileRequest, rel string, items []carryover.Item) ([]carryover.Item, error) {
	if len(rel) < 4 {
		return nil, nil
	}
	var out []carryover.Item
	read := 0
	outputs := NewErrorOutputs(st)
	for _, it := range items { // newest first
		if it.Kind != carryover.KindError || it.Resolved || it.Window >= req.Window || mentions(it, rel) {
			continue // fixed, in the window, or one whose first lines name the file (open has it, unless shown)
		}
		if read++; read > DeepOpenErrors || len(out) == fileRecallEdits {
			break
		}
		lines, err := outputs.Lines(ctx, it)
		if err != nil {
			return nil, fmt.Errorf("file recall: %w", err)
		}
		for _, l := range lines {
			if strings.Contains(filepath.ToSlash(l), filepath.ToSlash(rel)) {
				it.Text = l
				out = append(out, it)
				break
			}
		}
	}
	return out, nil
}

// DeepOpenErrors bounds the open errors whose whole output file recall,
// and the hooks' recall index, read back for the files it names.
const DeepOpenErrors = 16

// samePath reports whether an archived path (relative to the project, or
// absolute when outside it) names the file rel.
func samePath(archived, rel, project string) bool {
	archived = filepath.Clean(archived)
	if archived == rel {
		return true
	}
	return filepath.IsAbs(archived) && relPath(archived, project) == rel
}

// mentions reports whether an error item names the file.
func mentions(it carryover.Item, rel string) bool {
	if len(rel) < 4 {
		return false
	}
	return strings.Contains(it.Text, rel) || strings.Contains(it.Detail, rel)
}

// earlierEdits finds the file's edits in the session's chunks before the
// current window, newest first: each edit's heading line (Edit f:,
// Write f (…), MultiEdit f (…)), the diff lines under it and the
// assistant's last words before it.
func earlierEdits(ctx context.Context, st carryover.Store, req FileRequest, file string) ([]fileEdit, error) {
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: req.SessionID, Turn: -1, BeforeWindow: req.Window,
		Newest: true, Limit: fileRecallChunks})
	if err != nil {
		return nil, fmt.Errorf("file recall: chunks: %w", err)
	}
	heads := []string{"Edit " + file + ":", "Write " + file + " (", "MultiEdit " + file + " (", "NotebookEdit " + file}
	var out []fileEdit
	for _, c := range cs {
		if !slices.Contains(c.Files, file) {
			continue
		}
		var found []fileEdit
		why := ""
		var cur *fileEdit
		for line := range strings.Lines(c.Text) {
			line = strings.TrimRight(line, "\n")
			if t, ok := strings.CutPrefix(line, "Assistant: "); ok {
				why, cur = oneLine(t), nil
				continue
			}
			if slices.ContainsFunc(heads, func(h string) bool { return strings.HasPrefix(line, h) }) {
				found = append(found, fileEdit{chunk: c.ID, first: c.FirstLine, last: c.LastLine, why: why})
				cur = &found[len(found)-1]
				continue
			}
			if cur == nil {
				continue
			}
			if strings.HasPrefix(line, "Edit ") || strings.HasPrefix(line, "$ ") || strings.HasPrefix(line, "Read ") ||
				strings.HasPrefix(line, "→") || strings.HasPrefix(line, "Write ") {
				cur = nil // the next call
				continue
			}
			if len(cur.diff) < 16 && strings.TrimSpace(strings.TrimLeft(line, "+- ")) != "" {
				cur.diff = append(cur.diff, strings.TrimSpace(line))
			}
		}
		// Newest first, within the chunk too.
		slices.Reverse(found)
		out = append(out, found...)
	}
	return out, nil
}

// renderFileRecall writes the block: a heading with the file, the count
// of edits and the task, then the newest edits (why, and the diff's head),
// then the open errors.
func renderFileRecall(rel string, file carryover.Item, total int, edits []fileEdit, open []carryover.Item) Block {
	blk := Block{Reason: "file recall"}
	if file.ID != 0 {
		blk.ItemIDs = append(blk.ItemIDs, file.ID)
	}
	var b strings.Builder
	switch {
	case total > 0:
		fmt.Fprintf(&b, "carryover: before the compaction this session changed %s (%s", rel, plural(total, "edit"))
		// The task is the turn's prompt, the same for every edit of a long
		// autonomous turn: only worth its room when no edit says why.
		if task := oneLine(file.Detail); task != "" && !slices.ContainsFunc(edits, func(e fileEdit) bool { return e.why != "" }) {
			fmt.Fprintf(&b, "; task: %s", clip(task, 90))
		}
		b.WriteString("):\n")
	default:
		fmt.Fprintf(&b, "carryover: before the compaction this session left errors about %s open:\n", rel)
	}
	for i, e := range edits {
		if i == fileRecallEdits {
			break
		}
		var l strings.Builder
		fmt.Fprintf(&l, "- L%d-%d", e.first, e.last)
		if e.why != "" {
			fmt.Fprintf(&l, " %s", clip(e.why, 150))
		}
		if len(e.diff) > 0 {
			fmt.Fprintf(&l, " [%s]", clip(strings.Join(e.diff, " ⏎ "), 160))
		}
		line := l.String()
		if b.Len()+len(line)+1 > FileRecallBudget {
			break
		}
		b.WriteString(line + "\n")
		if !slices.Contains(blk.ChunkIDs, e.chunk) {
			blk.ChunkIDs = append(blk.ChunkIDs, e.chunk)
		}
	}
	for _, it := range open {
		line := fmt.Sprintf("- open error (L%d): %s", it.Line, clip(oneLine(it.Text), 160))
		if b.Len()+len(line)+1 > FileRecallBudget {
			break
		}
		b.WriteString(line + "\n")
		blk.ItemIDs = append(blk.ItemIDs, it.ID)
	}
	blk.Text = clip(strings.TrimRight(b.String(), "\n"), FileRecallBudget)
	return blk
}
