package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/retrieve"
)

// PostToolUse runs after every successful tool call the installed matcher
// selects (Read, Edit, Write, MultiEdit). On a file that this session
// changed before its last compaction, or that an error open then names,
// it injects what was done to it and why (file recall), once per file per
// context window. A failed Bash call reported here rather than in
// PostToolUseFailure (a non-zero exit in tool_response) gets failure
// recall. With Config.PostToolUseArchive (install --post-tool-use) it
// first archives what is new. Every other call returns without opening
// the store: this hook costs a process per tool call, so the usual answer,
// "nothing to recall", comes from the recall index (see fileindex.go).
func (r *run) postToolUse(ctx context.Context) error {
	if r.h.Config.PostToolUseArchive {
		if _, err := r.archiveLogged(ctx); err != nil {
			return err
		}
	}
	if text, failed := bashFailure(r.in); failed {
		return r.recallFailure(ctx, text)
	}
	if file := toolFile(r.in); file != "" {
		return r.recallFile(ctx, file)
	}
	return nil
}

// postToolUseWork reports whether PostToolUse has anything to do for this
// payload, without opening the store.
func (h *Handler) postToolUseWork(in Input) bool {
	if h.Config.PostToolUseArchive {
		return true
	}
	if text, failed := bashFailure(in); failed {
		return retrieve.RecallableFailure(in.ToolName, text)
	}
	file := absPath(toolFile(in), in.Cwd)
	if file == "" {
		return false
	}
	ix, ok := readRecallIndex(h.Config.DB, in.SessionID)
	return ok && ix.has(file)
}

// fileTools are the tools whose calls file recall answers.
var fileTools = map[string]bool{"Read": true, "Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// toolFile is the file a file tool call names ("" for other calls, and
// for an input that is not an object).
func toolFile(in Input) string {
	if !fileTools[in.ToolName] {
		return ""
	}
	var v struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(in.ToolInput, &v) != nil {
		return ""
	}
	if v.FilePath != "" {
		return v.FilePath
	}
	return v.NotebookPath
}

// toolShown is what a file tool call put in front of the model: the
// strings it typed (an Edit's old and new text, a Write's content) and, for
// a Read, those of its result (the lines read). An Edit's or Write's
// tool_response also holds the whole file as it was (originalFile), which
// the model does not see, so only a Read's result counts.
func toolShown(in Input) string {
	parts := ident.InputStrings(in.ToolInput)
	if in.ToolName == "Read" {
		parts = append(parts, ident.InputStrings(in.ToolResponse)...)
	}
	return strings.Join(parts, "\n")
}

// toolCommand is a Bash call's command ("" otherwise).
func toolCommand(in Input) string {
	var v struct {
		Command string `json:"command"`
	}
	if in.ToolName != "Bash" || json.Unmarshal(in.ToolInput, &v) != nil {
		return ""
	}
	return v.Command
}

// bashFailure recognises a failed Bash call in a PostToolUse payload, for
// a Claude Code that reports failures there (older versions, or a hook
// installed for every tool): a tool_response that is an error string
// ("Error: Exit code 2 …"), or an object with a non-zero exit code or an
// error flag. It returns the error text as PostToolUseFailure would give
// it. Claude Code 2.1 reports failed calls through PostToolUseFailure
// instead, and a successful call's response never looks like this.
func bashFailure(in Input) (string, bool) {
	if in.ToolName != "Bash" || len(in.ToolResponse) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(in.ToolResponse, &s) == nil {
		s = strings.TrimPrefix(s, "Error: ")
		if strings.HasPrefix(s, "Exit code ") {
			return s, true
		}
		return "", false
	}
	var v struct {
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		ExitCode *int   `json:"exitCode"`
		Code     *int   `json:"exit_code"`
		IsError  bool   `json:"is_error"`
	}
	if json.Unmarshal(in.ToolResponse, &v) != nil {
		return "", false
	}
	code := 0
	for _, c := range []*int{v.ExitCode, v.Code} {
		if c != nil && *c != 0 {
			code = *c
		}
	}
	if code == 0 && !v.IsError {
		return "", false
	}
	out := strings.TrimRight(v.Stdout, "\n")
	if v.Stderr != "" {
		out = strings.TrimLeft(out+"\n"+v.Stderr, "\n")
	}
	if code == 0 {
		code = 1
	}
	return fmt.Sprintf("Exit code %d\n%s", code, out), true
}

// recordedInjection is the audit event of a tool hook's injection: a
// subagent's context is not the main one, so its recalls are kept apart
// (and once per window across the session's subagents).
func (r *run) recordedInjection() string {
	if r.in.AgentID != "" {
		return string(r.ev) + ":subagent"
	}
	return string(r.ev)
}

// windowInjections returns what this context already got in the current
// window from this event (item ids), and what the window's restore showed.
func (r *run) windowInjections(ctx context.Context, window int) (mine, shownItems, shownChunks map[int64]bool, err error) {
	prev, err := carryover.ReadInjectionsWithoutText(ctx, r.st, r.in.SessionID, windowInjectionsRead)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("injections: %w", err)
	}
	mine, shownItems, shownChunks = r.inWindow(prev, window)
	return mine, shownItems, shownChunks, nil
}

// windowInjectionsRead is how many of a session's latest audit records the
// tool hooks read.
const windowInjectionsRead = 500

// inWindow splits the audit records of the window: what this context got
// from this event (item ids), and what the window's restore showed.
func (r *run) inWindow(prev []carryover.Injection, window int) (mine, shownItems, shownChunks map[int64]bool) {
	mine, shownItems, shownChunks = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	event := r.recordedInjection()
	for _, p := range prev {
		if p.Window != window {
			continue
		}
		switch {
		case p.Event == event:
			for _, id := range p.ItemIDs {
				mine[id] = true
			}
		case strings.HasPrefix(p.Event, "SessionStart"):
			for _, id := range p.ItemIDs {
				shownItems[id] = true
			}
			for _, id := range p.ChunkIDs {
				shownChunks[id] = true
			}
		}
	}
	return mine, shownItems, shownChunks
}

// session returns the archived session, or one of the payload's project
// with no window yet when nothing of it is archived.
func (r *run) session(ctx context.Context) (carryover.Session, error) {
	return r.archivedOr(carryover.SessionWithoutCounts(ctx, r.st, r.in.SessionID))
}

// archivedOr returns the session a lookup found, or one of the payload's
// project with no window yet when the lookup found none.
func (r *run) archivedOr(sess carryover.Session, err error) (carryover.Session, error) {
	if errors.Is(err, carryover.ErrNotFound) {
		return carryover.Session{ID: r.in.SessionID, Project: projectdir.Root(r.in.Cwd)}, nil
	}
	if err != nil {
		return sess, fmt.Errorf("session: %w", err)
	}
	r.knowProject(sess.Project)
	return sess, nil
}

// recallFile injects file recall for the file a tool call named.
func (r *run) recallFile(ctx context.Context, file string) error {
	sess, err := r.session(ctx)
	if err != nil || sess.Windows == 0 {
		return err
	}
	abs := absPath(file, r.in.Cwd)
	mine, shownItems, shownChunks, err := r.windowInjections(ctx, sess.Windows)
	if err != nil {
		return err
	}
	blk, err := retrieve.FileRecall(ctx, r.st, retrieve.FileRequest{
		SessionID: r.in.SessionID, Project: sess.Project, Window: sess.Windows, File: abs,
		Exclude: mine, ShownItems: shownItems, ShownChunks: shownChunks, MinNovel: r.h.Config.ToolRecall.FileMinNovel,
		Shown: toolShown(r.in),
	})
	if err != nil {
		return err
	}
	if r.in.AgentID == "" {
		// Settled for this window: recalled now, or nothing to say.
		if err := dropFromRecallIndex(r.h.Config.DB, r.in.SessionID, abs); err != nil {
			r.h.log().Warn("recall index", "err", err)
		}
	}
	return r.inject(ctx, r.recordedInjection(), sess.Project, sess.Windows, blk)
}

// recallFailure injects failure recall for a failed call's error text.
func (r *run) recallFailure(ctx context.Context, errText string) error {
	// Both at once: a server's store reads them in one round trip.
	found, prev, err := carryover.ReadSessionAndInjections(ctx, r.st, r.in.SessionID, windowInjectionsRead)
	sess, err := r.archivedOr(found, err)
	if err != nil {
		return err
	}
	mine, _, _ := r.inWindow(prev, sess.Windows)
	blk, err := retrieve.FailureRecall(ctx, r.st, retrieve.FailureRequest{
		SessionID: r.in.SessionID, Project: sess.Project, Window: sess.Windows,
		Tool: r.in.ToolName, Command: toolCommand(r.in), Error: errText,
		Exclude: mine, MinScore: r.h.Config.ToolRecall.FailureMinScore,
	})
	if err != nil {
		return err
	}
	return r.inject(ctx, r.recordedInjection(), sess.Project, sess.Windows, blk)
}

// lineSuffix is a ":12" or ":12:5" position after a path in an error.
// Compiled on first use: most hook processes never need it.
var lineSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(:\d+)+$`) })

// updateRecallIndex writes the session's recall index for the window that
// starts at this compaction: the files it changed before it, and those
// named by its errors still open. items are the session's file edits and
// errors when the caller has them already; nil reads them.
func (r *run) updateRecallIndex(ctx context.Context, sess carryover.Session, window int, items []carryover.Item) error {
	if items == nil {
		var err error
		items, err = r.st.Items(ctx, carryover.ItemFilter{SessionID: sess.ID,
			Kinds: []carryover.ItemKind{carryover.KindFileEdit, carryover.KindError}})
		if err != nil {
			return fmt.Errorf("recall index: %w", err)
		}
	}
	ix := recallIndex{Window: window}
	add := func(text string) {
		for _, t := range ident.Rooted(text) {
			t = lineSuffix().ReplaceAllString(t, "")
			if !strings.Contains(t, "/") && !strings.Contains(t, ".") {
				continue
			}
			if p := absPath(t, sess.Project); p != "" {
				ix.Files = append(ix.Files, pathHash(p))
			}
		}
	}
	deep := 0
	outputs := retrieve.NewErrorOutputs(r.st)
	for _, it := range items { // newest first
		switch {
		case it.Kind == carryover.KindFileEdit:
			if p := absPath(it.Text, sess.Project); p != "" {
				ix.Files = append(ix.Files, pathHash(p))
			}
		case !it.Resolved:
			add(it.Text + "\n" + it.Detail)
			// The item holds the first error lines only; file recall
			// also finds the files its output names on later ones.
			if deep < retrieve.DeepOpenErrors {
				deep++
				lines, err := outputs.Lines(ctx, it)
				if err != nil {
					return fmt.Errorf("recall index: %w", err)
				}
				add(strings.Join(lines, "\n"))
			}
		}
	}
	return writeRecallIndex(r.h.Config.DB, sess.ID, ix)
}
