package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/internal/hugeheap"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storeopen"
)

// do does the work of the event on the open store.
func (r *run) do(ctx context.Context) error {
	// A forgotten session gets nothing: no archiving, no injection, no
	// audit row that names it. Apply checks again, for a forget racing
	// this hook.
	if gone, err := r.st.Forgotten(ctx, r.in.SessionID); err != nil {
		return fmt.Errorf("forgotten: %w", err)
	} else if gone {
		return carryover.ErrForgotten
	}
	switch r.ev {
	case SessionStart:
		return r.sessionStart(ctx)
	case UserPromptSubmit:
		return r.userPrompt(ctx)
	case PreCompact:
		return r.preCompact(ctx)
	case PostCompact:
		return r.postCompact(ctx)
	case SessionEnd:
		return r.sessionEnd(ctx)
	case PostToolUse:
		return r.postToolUse(ctx)
	case PostToolUseFailure:
		return r.postToolFailure(ctx)
	default: // Stop
		return r.stop(ctx)
	}
}

// archive archives what is new in the session's transcript.
func (r *run) archive(ctx context.Context) (ingest.Report, error) {
	if r.in.TranscriptPath == "" {
		return ingest.Report{}, errors.New("no transcript_path in payload")
	}
	a := ingest.Archiver{Store: r.st, Redactor: r.h.Redactor}
	// PreCompact's passages wait for the next hook that indexes them
	// (PostCompact, Stop, SessionEnd): its instructions go to the
	// summariser sooner, and no search runs between it and PostCompact
	// (the restore reads chunks and items; the model resumes after both).
	a.DeferPassages = r.ev == PreCompact
	if r.h.OneShot {
		a.Prepare = func(n int64) {
			r.warmed = r.warmed || r.h.warmStore(n)
			prepareHeap(n)
		}
	}
	// The payload's cwd names the project of a session not archived yet
	// only: it follows the model's cd, the session's project does not.
	rep, err := a.File(ctx, r.in.TranscriptPath, ingest.Options{SessionID: r.in.SessionID, Cwd: r.in.Cwd})
	if err != nil {
		return rep, fmt.Errorf("ingest %s: %w", r.in.TranscriptPath, err)
	}
	if rep.Complete && rep.SessionID == r.in.SessionID {
		r.knowProject(rep.Project)
	}
	switch r.ev {
	case Stop, PostCompact, SessionEnd:
		// No restore or recall waits on these: the passages an archive
		// left go now.
		r.indexPassages(ctx, rep.SessionID)
	}
	return rep, nil
}

// passageStep is how many raw lines one IndexPassages call indexes, and
// passageSteps how many calls one hook makes (a cold 3 MB transcript is
// some 3,000 lines).
const (
	passageStep  = 4000
	passageSteps = 3
)

// indexPassages indexes the passages an earlier archive left (see
// ingest.Archiver.DeferPassages), until none is left, the hook's
// deadline or passageSteps steps. A failure is logged: the chunks are archived, and a later
// hook tries again.
func (r *run) indexPassages(ctx context.Context, session string) {
	ix, ok := r.st.(carryover.PassageIndexer)
	if !ok || session == "" {
		return
	}
	// At most passageSteps steps a hook: a long session archived before
	// passages existed is indexed over its next hooks, not in one.
	for range passageSteps {
		if ctx.Err() != nil {
			return
		}
		done, err := ix.IndexPassages(ctx, session, passageStep)
		if err != nil {
			r.h.log().Error("hook index passages", "session", session, "err", err)
			return
		}
		if done {
			return
		}
	}
}

// archiveLogged archives what is new and logs a failure: the restore or
// the instructions that follow are still worth giving from what is
// stored. It fails only when the session was forgotten meanwhile: then
// nothing follows.
func (r *run) archiveLogged(ctx context.Context) (ingest.Report, error) {
	rep, err := r.archive(ctx)
	if errors.Is(err, carryover.ErrForgotten) {
		return rep, err
	}
	if err != nil {
		r.h.log().Error("hook ingest", "session", r.in.SessionID, "err", err)
		r.corrupt = r.corrupt || errors.Is(err, storeopen.ErrCorrupt)
	}
	return rep, nil
}

// inject writes a context block and records it in the audit log.
func (r *run) inject(ctx context.Context, event, project string, window int, blk retrieve.Block) error {
	if blk.Text == "" {
		return nil
	}
	// Redaction is defence in depth: the store holds masked text already,
	// but notes and older archives may not. safeContext keeps archived
	// text from passing for the context's framing and within Claude
	// Code's inline limit.
	blk.Text = safeContext(r.h.redact(blk.Text))
	if err := WriteContext(r.out, r.ev, blk.Text); err != nil {
		return err
	}
	// The audit row keeps the text exactly as written, so that what the
	// model was given can be read back.
	_, err := r.st.RecordInjection(ctx, carryover.Injection{
		Time: time.Now(), SessionID: r.in.SessionID, Project: project, Event: event, Window: window,
		Chars: len(blk.Text), Tokens: carryover.TokenEstimate(blk.Text), ChunkIDs: blk.ChunkIDs, ItemIDs: blk.ItemIDs,
		Hash: hashText(blk.Text), Latency: time.Since(r.h.Start), Text: blk.Text, Reason: blk.Reason,
	})
	if err != nil {
		// The block is still worth injecting; the audit row is lost.
		r.h.log().Error("record injection", "err", err)
		r.corrupt = r.corrupt || errors.Is(err, storeopen.ErrCorrupt)
	}
	return nil
}

// prepareHeap readies the heap of a hook about to archive n bytes of
// transcript, which allocates some 7n in all (a 3.3 MB session: 22 MB;
// 16n prepared leaves room to spare): huge pages spare it most of its page
// faults (hugeheap), and on huge pages collecting at 9 rather than 2 times
// the live heap runs one or two collections instead of six (the process
// then peaks at some 50 MB; the live heap is bounded by a batch, so a
// 15 MB transcript peaks at 90 MB either way). Together they take about a sixth off a cold
// PreCompact. On 4 KB pages the larger heap costs more in page faults than
// the collections it saves (165 against 172 ms with huge pages off).
func prepareHeap(n int64) {
	if n >= 1<<20 && hugeheap.Prepare(16*n) {
		debug.SetGCPercent(800)
	}
}

// warmStore starts faulting in SQLite's memory on the other core (see
// storeopen.WarmAllocator; some 800 page faults fewer for the inserts of a
// cold ingest) when the one-event process is about to archive n bytes, a
// megabyte or more, and reports whether it did. Not with a single core,
// which would only interleave the work.
func (h *Handler) warmStore(n int64) bool {
	if !h.OneShot || n < 1<<20 || runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	go storeopen.WarmAllocator()
	return true
}

// transcriptSize is the size of the payload's transcript, 0 when it is not
// a regular file.
func transcriptSize(in Input) int64 {
	if ingest.ValidPath(in.TranscriptPath) != nil {
		return 0
	}
	if fi, err := os.Stat(in.TranscriptPath); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
