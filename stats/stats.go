// Package stats computes what carryover archived, injected and cost, from
// any carryover.Store: the figures behind `carryover stats`, the web view
// and the terminal dashboard.
package stats

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
)

// Filter selects what a report covers.
type Filter struct {
	// Project is a project root directory; "" covers every project.
	Project string
}

// Report is a JSON-friendly summary of an archive. Durations are in
// milliseconds, sizes in bytes, tokens estimated (about 4 bytes each).
type Report struct {
	Generated time.Time `json:"generated"`
	Project   string    `json:"project,omitempty"` // "" for every project

	Sessions    int         `json:"sessions"`
	Turns       int         `json:"turns"`
	Chunks      int         `json:"chunks"` // stored: a chunk several sessions share counts once
	Compactions Compactions `json:"compactions"`

	// Restores counts SessionStart injections (after a compaction, on
	// resume, startup briefs), Recalls UserPromptSubmit ones and
	// Instructions the PreCompact texts given to the summariser.
	Restores     int `json:"restores"`
	Recalls      int `json:"recalls"`
	Instructions int `json:"instructions"`
	// Injected has one row per injection event, by event name.
	Injected []EventTokens `json:"injected"`
	// TokensInjected is the total over every event.
	TokensInjected int `json:"tokens_injected"`

	// Hooks has one row per hook event, by event name.
	Hooks []EventLatency `json:"hooks"`

	StoreBytes int64          `json:"store_bytes"`
	Redactions map[string]int `json:"redactions"` // secrets masked, by detector kind

	TopFiles    []Count `json:"top_files"`    // files edited, most often first
	TopCommands []Count `json:"top_commands"` // shell commands that succeeded, most often first

	// PerSession has one row per session, most recently updated first.
	PerSession []SessionRow `json:"per_session"`
}

// Compactions counts compactions by trigger.
type Compactions struct {
	Total  int `json:"total"`
	Auto   int `json:"auto"`
	Manual int `json:"manual"`
}

// Dist is a distribution's size and quantiles (nearest rank).
type Dist struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// EventTokens is what one injection event put into Claude's context.
type EventTokens struct {
	Event  string `json:"event"`
	Count  int    `json:"count"`
	Chars  int    `json:"chars"`
	Tokens int    `json:"tokens"`
	// PerInjection is the tokens of each injection; PerSession the tokens
	// summed per session, over the sessions that had this event.
	PerInjection Dist `json:"per_injection"`
	PerSession   Dist `json:"per_session"`
}

// EventLatency is how one hook event ran: its latency in milliseconds
// (whole process, as Claude Code waits for it) and its outcomes.
type EventLatency struct {
	Event     string         `json:"event"`
	Runs      int            `json:"runs"`
	LatencyMS Dist           `json:"latency_ms"`
	Outcomes  map[string]int `json:"outcomes"` // ok | noop | error | timeout | panic
	Chars     int            `json:"chars"`    // characters written to Claude Code
}

// Count is a text and how many times it was seen.
type Count struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// SessionRow is one session's figures, for tables and charts.
type SessionRow struct {
	ID          string    `json:"id"`
	Project     string    `json:"project"`
	Title       string    `json:"title"`
	Started     time.Time `json:"started"`
	Updated     time.Time `json:"updated"`
	Turns       int       `json:"turns"`
	Chunks      int       `json:"chunks"` // held: those it shares with an older session included
	Compactions int       `json:"compactions"`
	// Injections and TokensInjected cover every event; Restores and
	// Recalls split them as in Report.
	Injections     int     `json:"injections"`
	Restores       int     `json:"restores"`
	Recalls        int     `json:"recalls"`
	TokensInjected int     `json:"tokens_injected"`
	HookRuns       int     `json:"hook_runs"`
	HookP50MS      float64 `json:"hook_p50_ms"`
	HookP95MS      float64 `json:"hook_p95_ms"`
}

// topN is how many files and commands a report lists.
const topN = 10

// Compute builds a report from the store. It reads every session, injection
// and hook run the filter selects, so its cost grows with the archive; a
// refreshing view should not call it more than every second or so.
func Compute(ctx context.Context, st carryover.Store, f Filter) (Report, error) {
	rep := Report{Generated: time.Now().UTC(), Project: f.Project, Redactions: map[string]int{}}
	sessions, err := st.Sessions(ctx, carryover.SessionFilter{Project: f.Project})
	if err != nil {
		return rep, fmt.Errorf("sessions: %w", err)
	}
	// A subagent is part of its session: it is counted in its session's
	// row (in a row of its own when the session is not archived).
	rows := make([]SessionRow, 0, len(sessions))
	index := make(map[string]int, len(sessions))
	row := func(s carryover.Session) {
		index[s.ID] = len(rows)
		rows = append(rows, SessionRow{ID: s.ID, Project: s.Project, Title: s.Title, Started: s.Started, Updated: s.Updated})
	}
	for _, s := range sessions {
		if s.Parent == "" {
			row(s)
		}
	}
	for _, s := range sessions {
		i, ok := index[s.ID]
		if !ok {
			if i, ok = index[s.Parent]; ok {
				index[s.ID] = i
			} else {
				row(s)
				i = index[s.ID]
			}
		}
		rows[i].Turns += s.Turns
		rows[i].Chunks += s.Chunks
		rep.Turns += s.Turns
		rep.Chunks += s.Chunks - s.Shared
		if s.Windows == 0 {
			continue // no compaction: skip the query
		}
		cs, err := st.Compactions(ctx, s.ID)
		if err != nil {
			return rep, fmt.Errorf("compactions of %s: %w", s.ID, err)
		}
		rows[i].Compactions += len(cs)
		for _, c := range cs {
			rep.Compactions.Total++
			switch c.Trigger {
			case "auto":
				rep.Compactions.Auto++
			case "manual":
				rep.Compactions.Manual++
			}
		}
	}
	rep.Sessions = len(rows)
	// Rows from sessions the filter selected, or, for events of a session
	// not archived yet, from the project itself.
	inScope := func(sessionID, project string) (int, bool) {
		if i, ok := index[sessionID]; ok {
			return i, true
		}
		return -1, f.Project == "" || project == f.Project
	}

	injs, err := st.Injections(ctx, "", 0)
	if err != nil {
		return rep, fmt.Errorf("injections: %w", err)
	}
	type eventAcc struct {
		row       EventTokens
		each      []float64
		bySession map[string]int
	}
	events := map[string]*eventAcc{}
	for _, in := range injs {
		i, ok := inScope(in.SessionID, in.Project)
		if !ok {
			continue
		}
		acc := events[in.Event]
		if acc == nil {
			acc = &eventAcc{row: EventTokens{Event: in.Event}, bySession: map[string]int{}}
			events[in.Event] = acc
		}
		acc.row.Count++
		acc.row.Chars += in.Chars
		acc.row.Tokens += in.Tokens
		acc.each = append(acc.each, float64(in.Tokens))
		acc.bySession[in.SessionID] += in.Tokens
		rep.TokensInjected += in.Tokens
		kind := eventKind(in.Event)
		switch kind {
		case "restore":
			rep.Restores++
		case "recall":
			rep.Recalls++
		case "instructions":
			rep.Instructions++
		}
		if i >= 0 {
			r := &rows[i]
			r.Injections++
			r.TokensInjected += in.Tokens
			switch kind {
			case "restore":
				r.Restores++
			case "recall":
				r.Recalls++
			}
		}
	}
	for _, acc := range events {
		acc.row.PerInjection = distOf(acc.each)
		per := make([]float64, 0, len(acc.bySession))
		for _, n := range acc.bySession {
			per = append(per, float64(n))
		}
		acc.row.PerSession = distOf(per)
		rep.Injected = append(rep.Injected, acc.row)
	}
	slices.SortFunc(rep.Injected, func(a, b EventTokens) int { return strings.Compare(a.Event, b.Event) })

	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{Project: f.Project})
	if err != nil {
		return rep, fmt.Errorf("hook runs: %w", err)
	}
	type hookAcc struct {
		row EventLatency
		lat []float64
	}
	hooks := map[string]*hookAcc{}
	perSession := map[int][]float64{}
	for _, r := range runs {
		ms := float64(r.Latency.Microseconds()) / 1000
		acc := hooks[r.Event]
		if acc == nil {
			acc = &hookAcc{row: EventLatency{Event: r.Event, Outcomes: map[string]int{}}}
			hooks[r.Event] = acc
		}
		acc.row.Runs++
		acc.row.Outcomes[r.Outcome]++
		acc.row.Chars += r.Chars
		acc.lat = append(acc.lat, ms)
		if i, ok := index[r.SessionID]; ok {
			perSession[i] = append(perSession[i], ms)
		}
	}
	for _, acc := range hooks {
		acc.row.LatencyMS = distOf(acc.lat)
		rep.Hooks = append(rep.Hooks, acc.row)
	}
	slices.SortFunc(rep.Hooks, func(a, b EventLatency) int { return strings.Compare(a.Event, b.Event) })
	for i, lat := range perSession {
		d := distOf(lat)
		rows[i].HookRuns, rows[i].HookP50MS, rows[i].HookP95MS = d.N, d.P50, d.P95
	}

	if rep.StoreBytes, err = st.Size(ctx); err != nil {
		return rep, fmt.Errorf("size: %w", err)
	}
	red, err := st.Redactions(ctx, f.Project)
	if err != nil {
		return rep, fmt.Errorf("redactions: %w", err)
	}
	for k, n := range red {
		rep.Redactions[k] = n
	}
	if rep.TopFiles, err = top(ctx, st, f.Project, carryover.KindFileEdit); err != nil {
		return rep, err
	}
	if rep.TopCommands, err = top(ctx, st, f.Project, carryover.KindCommand); err != nil {
		return rep, err
	}
	rep.PerSession = rows
	if rep.Injected == nil {
		rep.Injected = []EventTokens{}
	}
	if rep.Hooks == nil {
		rep.Hooks = []EventLatency{}
	}
	return rep, nil
}

// eventKind classifies an injection event: restore, recall, instructions,
// or "" for one this version does not know.
func eventKind(event string) string {
	switch {
	case strings.HasPrefix(event, "SessionStart"):
		return "restore"
	case strings.HasPrefix(event, "UserPromptSubmit"):
		return "recall"
	case strings.HasPrefix(event, "PreCompact"):
		return "instructions"
	}
	return ""
}

// top counts items of one kind across sessions by their text.
func top(ctx context.Context, st carryover.Store, project string, kind carryover.ItemKind) ([]Count, error) {
	items, err := st.Items(ctx, carryover.ItemFilter{Project: project, Kinds: []carryover.ItemKind{kind}})
	if err != nil {
		return nil, fmt.Errorf("%s items: %w", kind, err)
	}
	counts := map[string]int{}
	for _, it := range items {
		counts[it.Text] += max(it.Count, 1)
	}
	out := make([]Count, 0, len(counts))
	for t, n := range counts {
		out = append(out, Count{Text: t, Count: n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	})
	return out[:min(len(out), topN)], nil
}

// distOf sorts xs and returns its nearest-rank quantiles.
func distOf(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	slices.Sort(xs)
	return Dist{N: len(xs), P50: Quantile(xs, 0.50), P95: Quantile(xs, 0.95), Max: xs[len(xs)-1]}
}

// Quantile is the nearest-rank q-quantile (0 < q ≤ 1) of sorted xs, 0 for
// none.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Bytes formats a size for people, in binary units (276 KiB, 1.2 MiB).
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
