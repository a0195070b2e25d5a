package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/storeopen"
)

func (a *app) cmdIngest(ctx context.Context, args []string) error {
	fl := a.newFlags("ingest")
	project := fl.String("project", "", "project directory the transcripts belong to (default: their cwd)")
	all := fl.Bool("all", false, "ingest every transcript under ~/.claude/projects")
	quiet := fl.Bool("q", false, "print only the total")
	paths, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if *all {
		paths = append(paths, a.configEnv().ClaudeProjects())
	}
	if len(paths) == 0 {
		return usageErr{"ingest: give transcript files or directories, or --all"}
	}
	if *project != "" {
		if *project, err = projectdir.Abs(*project); err != nil {
			return err
		}
	}
	files, err := ingest.TranscriptFiles(paths...)
	if err != nil {
		return err
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

	var failed, forgotten, chunks, lines int
	// A bar on a terminal (nothing in pipes); per-file lines print above it.
	bar := progress.New(a.stderr, int64(len(files)), "ingest")
	stdout, stderr := bar.Writer(a.stdout), bar.Writer(a.stderr)
	for _, f := range files {
		rep, err := (&ingest.Archiver{Store: st, Redactor: a.redactor}).File(ctx, f, ingest.Options{Project: *project})
		if errors.Is(err, carryover.ErrForgotten) {
			// Forgotten on purpose: skipped, not failed.
			forgotten++
			if !*quiet {
				fmt.Fprintf(stdout, "%s  forgotten: not archived\n", rep.SessionID)
			}
			bar.Add(1)
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				bar.Done()
				return ctx.Err()
			}
			if errors.Is(err, storeopen.ErrFull) {
				return err // every further transcript would fail the same way
			}
			failed++
			fmt.Fprintf(stderr, "carryover: error: %v\n", err)
			bar.Add(1)
			continue
		}
		// The passages of lines archived before the store indexed them,
		// or that a hook left to later.
		if err := indexPassages(ctx, st, rep.SessionID); err != nil {
			fmt.Fprintf(stderr, "carryover: error: %v\n", err)
		}
		chunks += rep.Chunks
		lines += rep.Lines
		if !*quiet {
			note := ""
			if rep.Restarted {
				note = " (file was rewritten: read again)"
			}
			if rep.Skipped > 0 {
				note += fmt.Sprintf(" (%s skipped)", plural(rep.Skipped, "bad line"))
			}
			fmt.Fprintf(stdout, "%s  %s, %s, %s, %s%s\n", rep.SessionID, plural(rep.Lines, "new line"),
				plural(rep.Chunks, "chunk"), plural(rep.Items, "item"), plural(len(rep.Compactions), "compaction"), note)
		}
		bar.Add(1)
	}
	bar.Done()
	// A store made by an older carryover (or whose spans were dropped)
	// gets what it lacks here at once rather than a batch per hook.
	caught, err := ingest.Backfill(ctx, st, storeopen.BackfillBatch*16)
	if err != nil {
		return err
	}
	if caught > 0 && !*quiet {
		// Its count adds up passes over chunks, some twice: no number.
		fmt.Fprintln(a.stdout, "caught up the vectors, index entries and spans of chunks archived before")
	}
	fmt.Fprintf(a.stdout, "ingested %s: %s, %s into %s\n", plural(len(files)-failed-forgotten, "transcript"),
		plural(lines, "new line"), plural(chunks, "chunk"), cfg.DB)
	if forgotten > 0 {
		fmt.Fprintf(a.stdout, "skipped %s of forgotten sessions (see 'carryover forget --undo')\n", plural(forgotten, "transcript"))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d transcripts failed", failed, len(files))
	}
	return nil
}

// indexPassages indexes every raw line of the session whose passages are
// not indexed yet (carryover.PassageIndexer).
func indexPassages(ctx context.Context, st carryover.Store, session string) error {
	ix, ok := st.(carryover.PassageIndexer)
	if !ok || session == "" {
		return nil
	}
	for {
		done, err := ix.IndexPassages(ctx, session, 4000)
		if err != nil || done {
			return err
		}
	}
}
