package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
)

// compacter is what the SQLite store adds to carryover.Store for retention:
// erasing what deletions leave in the file and giving its space back.
type compacter interface {
	Compact(ctx context.Context) error
	FreeBytes(ctx context.Context) (int64, error)
}

func (a *app) cmdPrune(ctx context.Context, args []string) error {
	fl := a.newFlags("prune")
	olderThan := fl.String("older-than", "", "sessions last updated longer ago than this age (90d, 2w, 36h)")
	maxSize := fl.String("max-size", "", "remove the oldest sessions until the store is under this size (2GB, 500MiB)")
	project := fl.String("project", "", "only sessions of this project: its directory, or any path inside it (\".\" for the current one)")
	session := fl.String("session", "", "only this session, with its subagents (id or unique prefix)")
	yes := fl.Bool("yes", false, "remove them (without it, only show what would go)")
	noCompact := fl.Bool("no-compact", false, "do not rebuild the store afterwards: freed space is reused, the file does not shrink")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{fmt.Sprintf("prune: unexpected argument %q (give --older-than, --max-size, --project or --session)", pos[0])}
	}
	if *olderThan == "" && *maxSize == "" && *project == "" && *session == "" {
		return usageErr{"prune: say what to remove: --older-than AGE, --max-size SIZE, --project DIR or --session ID"}
	}
	var cutoff time.Time
	if *olderThan != "" {
		age, err := parseAge(*olderThan)
		if err != nil {
			return usageErr{"prune: --older-than: " + err.Error()}
		}
		cutoff = time.Now().Add(-age)
	}
	limit := int64(-1)
	if *maxSize != "" {
		if limit, err = parseSize(*maxSize); err != nil {
			return usageErr{"prune: --max-size: " + err.Error()}
		}
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
	if *project != "" {
		if *project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	}

	every, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		return err
	}
	// A session goes with its subagents (Prune removes them with it): the
	// candidates are top-level sessions, each counting its subagents' chunks.
	var all []carryover.Session
	family := map[string]int{}
	for _, s := range every {
		if s.Parent == "" {
			all = append(all, s)
		}
		family[cmp.Or(s.Parent, s.ID)] += s.Chunks
	}
	for i := range all {
		all[i].Chunks = family[all[i].ID]
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	size, err := st.Size(ctx)
	if err != nil {
		return err
	}
	comp, canCompact := st.(compacter)
	live := size
	if canCompact {
		free, err := comp.FreeBytes(ctx)
		if err != nil {
			return err
		}
		live -= free
	}
	est := sizeEstimator(every, live)

	// Candidates, oldest first.
	var cands []carryover.Session
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		if s.Parent == "" {
			s.Chunks = family[s.ID]
		}
		all = []carryover.Session{s}
	}
	for _, s := range all {
		if *project != "" && s.Project != *project {
			continue
		}
		if !cutoff.IsZero() && !s.Updated.Before(cutoff) {
			continue
		}
		cands = append(cands, s)
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Updated.Before(cands[j].Updated) })
	if limit >= 0 {
		// Only as many of the oldest as it takes to get under the size.
		remaining := live
		n := 0
		for n < len(cands) && remaining > limit {
			remaining -= est(cands[n])
			n++
		}
		cands = cands[:n]
	}
	if len(cands) == 0 {
		fmt.Fprintf(a.stdout, "nothing to prune (store %s, %d sessions)\n", formatSize(size), len(all))
		return nil
	}

	bar := progress.New(a.stderr, int64(len(cands)), "prune")
	var total carryover.PruneReport
	var freed int64
	out := bar.Writer(a.stdout)
	for _, s := range cands {
		rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: s.ID, DryRun: !*yes})
		if err != nil {
			bar.Done()
			return fmt.Errorf("prune %s: %w", s.ID, err)
		}
		addReport(&total, rep)
		freed += est(s)
		fmt.Fprintf(out, "  %s  %s  %d chunks  ~%s  %s  %s\n", sh.Short(s.ID), s.Updated.Local().Format("2006-01-02"),
			rep.Chunks, formatSize(est(s)), s.Project, truncate(s.Title, 50))
		bar.Add(1)
	}
	bar.Done()
	if !*yes {
		fmt.Fprintf(a.stdout, "would remove %s, about %s of %s\n", describeReport(total), formatSize(freed), formatSize(size))
		fmt.Fprintln(a.stdout, "nothing removed: run again with --yes to remove them")
		return nil
	}
	fmt.Fprintf(a.stdout, "removed %s\n", describeReport(total))
	return a.afterDelete(ctx, st, size, *noCompact)
}

// afterDelete compacts the store after a deletion, or says why the file
// keeps its size.
func (a *app) afterDelete(ctx context.Context, st carryover.Store, before int64, noCompact bool) error {
	comp, ok := st.(compacter)
	switch {
	case !ok:
		fmt.Fprintln(a.stdout, "the store reuses the freed space")
		return nil
	case noCompact:
		fmt.Fprintln(a.stdout, "not compacted: the freed space is reused by later writes, the file keeps its size, "+
			"and older copies of the removed text may stay in free pages until then")
		return nil
	}
	if progress.IsTerminal(a.stderr) {
		fmt.Fprintln(a.stderr, "compacting the store…")
	}
	if err := comp.Compact(ctx); err != nil {
		return hintErr{fmt.Errorf("compact the store (the rows are already removed): %w", err),
			"the store stays usable; run the command again when no Claude Code session is writing, or with --no-compact"}
	}
	after, err := st.Size(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "compacted the store: %s -> %s\n", formatSize(before), formatSize(after))
	return nil
}

// sizeEstimator returns a session's share of the store's live bytes, by its
// share of the chunks: chunks are size-bounded and carry most of the bytes
// (text, full-text index, vectors).
func sizeEstimator(all []carryover.Session, live int64) func(carryover.Session) int64 {
	chunks := 0
	for _, s := range all {
		chunks += s.Chunks
	}
	return func(s carryover.Session) int64 {
		switch {
		case chunks > 0:
			return int64(float64(live) * float64(s.Chunks) / float64(chunks))
		case len(all) > 0:
			return live / int64(len(all))
		}
		return 0
	}
}

func addReport(t *carryover.PruneReport, r carryover.PruneReport) {
	t.Sessions = append(t.Sessions, r.Sessions...)
	t.Chunks += r.Chunks
	t.Items += r.Items
	t.Compactions += r.Compactions
	t.Injections += r.Injections
	t.Notes += r.Notes
}

func describeReport(r carryover.PruneReport) string {
	return fmt.Sprintf("%s (%d chunks, %d items, %d compactions, %d injections, %d notes)",
		plural(len(r.Sessions), "session"), r.Chunks, r.Items, r.Compactions, r.Injections, r.Notes)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// parseAge reads an age such as 90d, 2w, 36h, 1w2d or 45m (w weeks, d days,
// h hours, m minutes, s seconds).
func parseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: want an age such as 90d, 2w or 36h (units w, d, h, m, s)", s)
	rest := strings.ToLower(strings.TrimSpace(s))
	if rest == "" {
		return 0, bad
	}
	var total float64
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
		if i <= 0 {
			return 0, bad
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, bad
		}
		unit := map[byte]time.Duration{'w': 7 * 24 * time.Hour, 'd': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute, 's': time.Second}[rest[i]]
		if unit == 0 {
			return 0, bad
		}
		total += n * float64(unit)
		rest = rest[i+1:]
	}
	if total <= 0 {
		return 0, fmt.Errorf("%q: the age must be positive", s)
	}
	if total > float64(100*365*24*time.Hour) {
		return 0, fmt.Errorf("%q: more than 100 years", s)
	}
	return time.Duration(total), nil
}

// parseSize reads a size: bytes, or a number with a unit, decimal (KB, MB,
// GB, TB) or binary (KiB, MiB, GiB, TiB, and K, M, G, T as in du).
func parseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q: want a size such as 2GB, 500MB or 1.5GiB", s)
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, bad
	}
	mult, ok := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
	}[unit]
	if !ok {
		return 0, bad
	}
	v := n * mult
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(v), nil
}

// formatSize prints bytes with a decimal unit: 1.2 MB.
func formatSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, exp := float64(n), 0
	for v >= unit && exp < 4 {
		v /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", v, "kMGT"[exp-1])
}
