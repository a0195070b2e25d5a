package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/termsafe"
)

// auditEntry is one injection as `audit --json` prints it.
type auditEntry struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	SessionID string    `json:"session_id"`
	Project   string    `json:"project"`
	Event     string    `json:"event"`
	Window    int       `json:"window"`
	Chars     int       `json:"chars"`
	Tokens    int       `json:"tokens"`
	Hash      string    `json:"hash"`
	ChunkIDs  []int64   `json:"chunk_ids"`
	ItemIDs   []int64   `json:"item_ids"`
	LatencyMS float64   `json:"latency_ms"`
	Reason    string    `json:"reason"`
	Text      string    `json:"text,omitempty"` // with --contents
}

func (a *app) cmdAudit(ctx context.Context, args []string) error {
	fl := a.newFlags("audit")
	session := fl.String("session", "", "only this session (id or unique prefix)")
	asJSON := fl.Bool("json", false, "print JSON")
	limit := fl.Int("limit", 50, "at most this many injections (0 for all)")
	contents := fl.Bool("contents", false, "print the injected text and what each chunk and item id holds")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{fmt.Sprintf("audit: unexpected argument %q (use --session ID)", pos[0])}
	}
	if *limit < 0 {
		return usageErr{"audit: --limit must be 0 or more"}
	}
	_, st, err := a.readStore(ctx, "", false)
	if err != nil {
		return err
	}
	defer st.Close()
	id := ""
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			// Recalls into a session not archived yet are audited too.
			if ins, ierr := st.Injections(ctx, *session, 1); ierr != nil || len(ins) == 0 {
				return err
			}
			s.ID = *session
		}
		id = s.ID
	}
	ins, err := st.Injections(ctx, id, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]auditEntry, 0, len(ins))
		for _, in := range ins {
			e := auditEntry{ID: in.ID, Time: in.Time, SessionID: in.SessionID, Project: in.Project,
				Event: in.Event, Window: in.Window, Chars: in.Chars, Tokens: in.Tokens, Hash: in.Hash,
				ChunkIDs: orNoIDs(in.ChunkIDs), ItemIDs: orNoIDs(in.ItemIDs), LatencyMS: float64(in.Latency.Microseconds()) / 1000,
				Reason: in.Reason}
			if *contents {
				e.Text = in.Text
			}
			out = append(out, e)
		}
		return a.writeJSON(out)
	}
	if len(ins) == 0 {
		fmt.Fprintln(a.stdout, "nothing injected yet: restores follow a compaction, recalls a prompt about archived work")
		return nil
	}
	items := map[string]map[int64]carryover.Item{} // by session, then id
	for _, in := range ins {
		// Archived text goes through termsafe: an imported record may hold
		// escape sequences.
		fmt.Fprintf(a.stdout, "%s  %s  %-22s window %d  %d chars, ~%d tokens  hash %s  %d ms\n",
			in.Time.Local().Format("2006-01-02 15:04:05"), termsafe.Line(carryover.ShortID(in.SessionID)), termsafe.Line(in.Event),
			in.Window, in.Chars, in.Tokens, termsafe.Line(in.Hash), in.Latency.Milliseconds())
		if in.Reason != "" {
			fmt.Fprintf(a.stdout, "    why: %s\n", termsafe.Line(in.Reason))
		}
		if !*contents {
			if len(in.ChunkIDs) > 0 {
				fmt.Fprintf(a.stdout, "    chunks %s\n", auditIDs(in.ChunkIDs))
			}
			if len(in.ItemIDs) > 0 {
				fmt.Fprintf(a.stdout, "    items  %s\n", auditIDs(in.ItemIDs))
			}
			continue
		}
		if err := a.auditContents(ctx, st, in, items); err != nil {
			return err
		}
		a.auditText(in)
	}
	if *limit > 0 && len(ins) == *limit {
		fmt.Fprintf(a.stdout, "(the newest %d; --limit 0 for all)\n", *limit)
	}
	return nil
}

// auditContents prints what an injection's chunk and item ids hold. Items
// are looked up among the injection's session's (cached in items); an id
// not found there (a project-wide item, or pruned since) prints bare.
func (a *app) auditContents(ctx context.Context, st carryover.Store, in carryover.Injection, items map[string]map[int64]carryover.Item) error {
	if len(in.ChunkIDs) > 0 {
		cs, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: in.ChunkIDs})
		if err != nil {
			return err
		}
		byID := make(map[int64]carryover.Chunk, len(cs))
		for _, c := range cs {
			byID[c.ID] = c
		}
		for _, id := range in.ChunkIDs {
			c, ok := byID[id]
			if !ok {
				fmt.Fprintf(a.stdout, "    chunk %d: no longer stored\n", id)
				continue
			}
			fmt.Fprintf(a.stdout, "    chunk %d: session %s turn %d lines %d-%d: %s\n", id, termsafe.Line(carryover.ShortID(c.SessionID)),
				c.Turn, c.FirstLine, c.LastLine, termsafe.Line(truncate(c.Summary, 100)))
		}
	}
	if len(in.ItemIDs) > 0 {
		byID, ok := items[in.SessionID]
		if !ok {
			its, err := st.Items(ctx, carryover.ItemFilter{SessionID: in.SessionID})
			if err != nil {
				return err
			}
			byID = make(map[int64]carryover.Item, len(its))
			for _, it := range its {
				byID[it.ID] = it
			}
			items[in.SessionID] = byID
		}
		for _, id := range in.ItemIDs {
			if it, ok := byID[id]; ok {
				fmt.Fprintf(a.stdout, "    item %d: %s: %s\n", id, it.Kind, termsafe.Line(truncate(it.Text, 100)))
			} else {
				fmt.Fprintf(a.stdout, "    item %d\n", id)
			}
		}
	}
	return nil
}

// auditText prints what was injected, each line indented behind a bar so
// that it reads apart from the records.
func (a *app) auditText(in carryover.Injection) {
	if in.Text == "" {
		fmt.Fprintln(a.stdout, "    text: not kept (recorded before carryover kept the injected text)")
		return
	}
	fmt.Fprintln(a.stdout, "    text:")
	for l := range strings.SplitSeq(strings.TrimRight(termsafe.String(in.Text), "\n"), "\n") {
		fmt.Fprintf(a.stdout, "    | %s\n", l)
	}
}

func auditIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, " ")
}

func orNoIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
