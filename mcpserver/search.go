package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

const searchDescription = `Search carryover's archive of this project's Claude Code sessions: every prompt, command, tool result, file edit and error, archived before each compaction, including the parts of this session that were compacted away.
Use it after a compaction, or when earlier work comes up, whenever you need an exact detail the summary does not contain: a command that worked, a file path, an error message, a value, a decision and its reason. Prefer it to guessing or re-running exploratory commands.
Query with distinctive words: identifiers, paths, error text, flags. Results are ranked hits with provenance (chunk id, session, turn, transcript lines, time, context window) and short snippets, small by default; read a hit in full with the get tool (chunk_ids), or its surroundings with get (session, from_line, to_line).`

type searchIn struct {
	Query  string `json:"query" jsonschema:"words to look for: identifiers, paths, commands, error text; all forms of a word match"`
	Scope  string `json:"scope,omitempty" jsonschema:"where to search: session (only the current session), project (every session of this project, the default) or all (every archived project)"`
	Kind   string `json:"kind,omitempty" jsonschema:"only chunks from which a fact of this kind was extracted: goal, todo, decision, constraint, error, fix, file_edit, command, marker, value or spec (a spec's constraints, no-gos, out of scope)"`
	File   string `json:"file,omitempty" jsonschema:"only chunks that touched a file whose path contains this"`
	Since  string `json:"since,omitempty" jsonschema:"only chunks from this time on: RFC 3339 (2026-01-02T15:04:05Z), a date (2026-01-02) or an age (7d, 24h, 90m)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many hits, 1 to 20 (default 5)"`
	Budget int    `json:"budget,omitempty" jsonschema:"characters of the whole result, 500 to 12000 (default 3000)"`
}

// Search defaults and caps.
const (
	defaultSearchLimit  = 5
	maxSearchLimit      = 20
	defaultSearchBudget = 3000
	minBudget           = 500
	// minUsefulSnippet is the least snippet text worth a hit.
	minUsefulSnippet = 150
	// hitHeaderReserve is what a hit's provenance line adds to the
	// snippet's own budget, about.
	hitHeaderReserve = 70
	// kindOverfetch is how many more hits a kind filter asks the store for.
	kindOverfetch = 8
)

func (s *server) search(ctx context.Context, in searchIn) (string, error) {
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return "", fmt.Errorf("query is empty: give words to search for")
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultSearchLimit
	}
	if limit < 1 || limit > maxSearchLimit {
		return "", fmt.Errorf("limit %d is out of range: give 1 to %d (default %d)", in.Limit, maxSearchLimit, defaultSearchLimit)
	}
	budget, err := checkBudget(in.Budget, min(defaultSearchBudget, s.opt.SearchBudgetMax), minBudget, s.opt.SearchBudgetMax)
	if err != nil {
		return "", err
	}
	q := carryover.Query{Text: query, Limit: limit, File: strings.TrimSpace(in.File)}
	where := ""
	switch strings.ToLower(strings.TrimSpace(in.Scope)) {
	case "", "project":
		q.Project = s.opt.Project
		where = "this project (" + s.opt.Project + ")"
		if s.opt.Project == "" {
			where = "all projects"
		}
	case "session":
		id, err := s.currentSession(ctx)
		if err != nil {
			return "", err
		}
		q.SessionID = id
		where = "the current session " + carryover.ShortID(id)
	case "all":
		where = "all projects"
	default:
		return "", fmt.Errorf("scope %s: want session, project or all", echo(in.Scope))
	}
	var kind carryover.ItemKind
	if k := strings.ToLower(strings.TrimSpace(in.Kind)); k != "" {
		kind = carryover.ItemKind(k)
		if !slices.Contains(carryover.ItemKinds, kind) {
			return "", fmt.Errorf("kind %s: want one of %s", echo(in.Kind), carryover.ItemKindNames())
		}
	}
	if strings.TrimSpace(in.Since) != "" {
		// oneLine bounds what an error quotes back; a valid time or age is
		// much shorter and has no inner white space.
		if q.Since, err = retrieve.ParseSince(oneLine(in.Since, maxEcho), time.Now()); err != nil {
			return "", err
		}
	}

	intro := fmt.Sprintf("Search %s in %s", echo(query), where)
	if kind != "" {
		intro += ", chunks with a " + string(kind) + " fact"
	}
	if q.File != "" {
		intro += ", touching files matching " + echo(q.File)
	}
	if !q.Since.IsZero() {
		intro += ", since " + stamp(q.Since)
	}
	// Small budgets show fewer hits rather than snippets too short to use.
	fixed := len(intro) + len(searchFooter) + 60
	q.Limit = max(min(limit, (budget-fixed)/(hitHeaderReserve+minUsefulSnippet)), 1)
	rec := &recordingStore{Store: s.st, kind: kind, chunks: map[int64]carryover.Chunk{}}
	snippetBudget := max(budget-fixed-q.Limit*hitHeaderReserve, minUsefulSnippet)
	resp, err := retrieve.Search(ctx, rec, retrieve.SearchRequest{Query: q, Budget: snippetBudget})
	if err != nil {
		return "", err
	}
	res := resp.Results
	if len(res) == 0 {
		msg := intro + ": no matches."
		switch {
		case len(rec.chunks) > 0:
			msg = fmt.Sprintf("%s: %s matched, but a budget of %d characters is too small to show them; raise budget.", intro, count(len(rec.chunks), "chunk"), budget)
		case kind != "" && rec.unfiltered > 0:
			msg += fmt.Sprintf(" %d chunks match without the kind filter: search again without kind.", rec.unfiltered)
		default:
			msg += " Try fewer or other words (an identifier, a path, part of an error message), or a wider scope."
		}
		return msg, nil
	}
	hits := make([]string, len(res))
	for i, r := range res {
		hits[i] = s.renderHit(i+1, r, rec.chunks[r.ChunkID])
	}
	// Drop hits from the end until the whole fits, then cut the last one.
	for n := len(hits); n > 0; n-- {
		out := joinHits(intro, hits[:n], len(res), resp.Weak)
		if len(out) <= budget || n == 1 {
			return capText(out, budget, fmt.Sprintf("the budget of %d characters is reached. Raise budget, or read the hit with get", budget)), nil
		}
	}
	return "", nil // unreachable: n == 1 returns
}

const searchFooter = `Full text: get {"chunk_ids": [ID]}. Surroundings: get {"session": "S", "from_line": A, "to_line": B}.`

// weakNote opens the hits of a search whose best hit is a weak match
// (retrieve.SearchResponse.Weak).
const weakNote = "no strong match; closest:"

func joinHits(intro string, hits []string, found int, weak bool) string {
	var b strings.Builder
	if len(hits) < found {
		fmt.Fprintf(&b, "%s: %s (%d more left out to fit the budget).\n", intro, count(len(hits), "hit"), found-len(hits))
	} else {
		fmt.Fprintf(&b, "%s: %s, best first.\n", intro, count(len(hits), "hit"))
	}
	if weak {
		b.WriteString(weakNote + "\n")
	}
	b.WriteString("\n")
	for _, h := range hits {
		b.WriteString(h)
		b.WriteString("\n\n")
	}
	b.WriteString(searchFooter)
	return b.String()
}

// renderHit is a hit's provenance line and snippet.
func (s *server) renderHit(n int, r retrieve.Result, c carryover.Chunk) string {
	snippet := r.Text
	if rest, ok := strings.CutPrefix(snippet, "[session "); ok {
		// retrieve's own short provenance line: replaced by a fuller one.
		if _, after, ok := strings.Cut(rest, "\n"); ok {
			snippet = after
		}
	}
	if c.ID == 0 {
		// A passage's chunk, which the search did not rank itself.
		c = carryover.Chunk{Start: r.Time, Project: r.Project, Window: -1}
	}
	head := fmt.Sprintf("[%d] chunk %d · session %s · turn %d · lines %d-%d", n, r.ChunkID, carryover.ShortID(r.SessionID), r.Turn, r.Lines[0], r.Lines[1])
	if c.Window >= 0 {
		head += fmt.Sprintf(" · window %d", c.Window)
	}
	head += " · " + stamp(c.Start)
	if s.opt.Project == "" || c.Project != s.opt.Project {
		if c.Project != "" {
			head += " · project " + c.Project
		}
	}
	if r.RawLine > 0 {
		snippet += fmt.Sprintf("\n(numbered lines of transcript line %d; all of it: get {\"session\": %q, \"from_line\": %d, \"to_line\": %d})",
			r.RawLine, r.SessionID, r.RawLine, r.RawLine)
	}
	return head + "\n" + snippet
}

// recordingStore keeps the chunks a search returns, for their provenance,
// and with a kind set keeps only chunks from which an item of that kind was
// extracted.
type recordingStore struct {
	carryover.Store
	kind       carryover.ItemKind
	chunks     map[int64]carryover.Chunk
	unfiltered int // hits before the kind filter
}

// SearchPassages searches the store's passages when it indexes them and
// no kind filter applies (a passage is not a chunk an item came from).
func (r *recordingStore) SearchPassages(ctx context.Context, q carryover.Query) ([]carryover.PassageHit, error) {
	ps, ok := r.Store.(carryover.PassageSearcher)
	if !ok || r.kind != "" {
		return nil, nil
	}
	return ps.SearchPassages(ctx, q)
}

func (r *recordingStore) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	want := q.Limit
	if r.kind != "" {
		q.Limit = want * kindOverfetch
	}
	hits, err := r.Store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	if r.kind != "" {
		r.unfiltered = len(hits)
		if hits, err = retrieve.FilterKind(ctx, r.Store, hits, r.kind); err != nil {
			return nil, err
		}
		hits = hits[:min(len(hits), want)]
	}
	for _, h := range hits {
		r.chunks[h.Chunk.ID] = h.Chunk
	}
	return hits, nil
}
