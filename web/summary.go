package web

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/carryover-dev/carryover"
)

// summary is what the stats page shows, read from the store.
type summary struct {
	Project                                string
	Sessions, Turns, Chunks, Compactions   int
	Injections, InjectedTokens, StoreBytes int64
	Events                                 []eventRow
	Hooks                                  []hookRow
	PerSession                             []sessionTokens
	Redactions                             map[string]int
}

// eventRow sums the injections of one event.
type eventRow struct {
	Event    string
	Count    int
	Tokens   int
	P50, P95 int // tokens per injection
}

// hookRow sums the hook runs of one event.
type hookRow struct {
	Event    string
	Runs     int
	Errors   int // outcome error, timeout or panic
	P50, P95 time.Duration
}

type sessionTokens struct {
	ID, Title string
	Tokens    int
}

// summarize reads the figures of a project ("" for all).
func summarize(ctx context.Context, st carryover.Store, project string) (summary, error) {
	sum := summary{Project: project}
	ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: project})
	if err != nil {
		return sum, fmt.Errorf("sessions: %w", err)
	}
	titles := map[string]string{}
	for _, s := range ss {
		sum.Sessions++
		sum.Turns += s.Turns
		sum.Chunks += s.Chunks
		sum.Compactions += s.Windows
		titles[s.ID] = s.Title
	}
	injs, err := st.Injections(ctx, "", 0)
	if err != nil {
		return sum, fmt.Errorf("injections: %w", err)
	}
	perEvent := map[string][]int{}
	perSession := map[string]int{}
	for _, in := range injs {
		if project != "" && in.Project != project {
			continue
		}
		sum.Injections++
		sum.InjectedTokens += int64(in.Tokens)
		perEvent[in.Event] = append(perEvent[in.Event], in.Tokens)
		perSession[in.SessionID] += in.Tokens
	}
	for ev, toks := range perEvent {
		slices.Sort(toks)
		total := 0
		for _, t := range toks {
			total += t
		}
		sum.Events = append(sum.Events, eventRow{Event: ev, Count: len(toks), Tokens: total,
			P50: quantile(toks, 0.5), P95: quantile(toks, 0.95)})
	}
	sort.Slice(sum.Events, func(i, j int) bool { return sum.Events[i].Event < sum.Events[j].Event })
	for id, t := range perSession {
		sum.PerSession = append(sum.PerSession, sessionTokens{ID: id, Title: titles[id], Tokens: t})
	}
	sort.Slice(sum.PerSession, func(i, j int) bool {
		a, b := sum.PerSession[i], sum.PerSession[j]
		return a.Tokens > b.Tokens || a.Tokens == b.Tokens && a.ID < b.ID
	})

	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{Project: project})
	if err != nil {
		return sum, fmt.Errorf("hook runs: %w", err)
	}
	lat := map[string][]time.Duration{}
	errs := map[string]int{}
	for _, h := range runs {
		lat[h.Event] = append(lat[h.Event], h.Latency)
		if h.Outcome == "error" || h.Outcome == "timeout" || h.Outcome == "panic" {
			errs[h.Event]++
		}
	}
	for ev, ds := range lat {
		slices.Sort(ds)
		sum.Hooks = append(sum.Hooks, hookRow{Event: ev, Runs: len(ds), Errors: errs[ev],
			P50: quantile(ds, 0.5), P95: quantile(ds, 0.95)})
	}
	sort.Slice(sum.Hooks, func(i, j int) bool { return sum.Hooks[i].Event < sum.Hooks[j].Event })

	if sum.StoreBytes, err = st.Size(ctx); err != nil {
		return sum, fmt.Errorf("size: %w", err)
	}
	if sum.Redactions, err = st.Redactions(ctx, project); err != nil {
		return sum, fmt.Errorf("redactions: %w", err)
	}
	return sum, nil
}

// quantile is the nearest-rank q-quantile of sorted values.
func quantile[T int | time.Duration](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
