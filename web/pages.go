package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/stats"
)

type projectRow struct {
	Project                              string
	Sessions, Turns, Compactions, Chunks int
	Updated                              time.Time
}

func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	ss, err := s.st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rows []projectRow
	at := map[string]int{}
	for _, x := range ss {
		i, ok := at[x.Project]
		if !ok {
			i = len(rows)
			at[x.Project] = i
			rows = append(rows, projectRow{Project: x.Project})
		}
		p := &rows[i]
		if x.Parent == "" {
			p.Sessions++ // a subagent is part of its session
		}
		p.Turns += x.Turns
		p.Compactions += x.Windows
		p.Chunks += x.Chunks - x.Shared // each stored chunk once
		if x.Updated.After(p.Updated) {
			p.Updated = x.Updated
		}
	}
	s.render(w, r, http.StatusOK, "index", page{Title: "Projects", Data: rows})
}

func (s *Server) handleProject(w http.ResponseWriter, r *http.Request) {
	project := r.URL.Query().Get("p")
	if project == "" {
		s.notFound(w, r, "no project given")
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	// Subagents are listed on their session's page.
	ss, err := s.st.Sessions(ctx, carryover.SessionFilter{Project: project, TopLevel: true})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(ss) == 0 {
		s.notFound(w, r, "no archived session in project "+project)
		return
	}
	sh, err := s.shortener(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := make([]sessionRow, len(ss))
	for i, x := range ss {
		rows[i] = sessionRow{Session: x, Short: sh.Short(x.ID)}
	}
	s.render(w, r, http.StatusOK, "project", page{Title: project, Data: struct {
		Project  string
		Sessions []sessionRow
	}{project, rows}})
}

// sessionRow is a session in a list, with the shortest prefix of its id
// that no other session shares.
type sessionRow struct {
	carryover.Session
	Short string
}

// shortener shortens ids against every top-level session.
func (s *Server) shortener(ctx context.Context) (*carryover.IDShortener, error) {
	all, err := s.st.Sessions(ctx, carryover.SessionFilter{TopLevel: true})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(all))
	for i, x := range all {
		ids[i] = x.ID
	}
	return carryover.NewIDShortener(ids), nil
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("id")
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	// An id, or any reference the CLI takes (a prefix, PARENT/agent-ID).
	sess, err := retrieve.FindSession(ctx, s.st, ref)
	if errors.Is(err, carryover.ErrNotFound) {
		s.notFound(w, r, "no archived session "+ref)
		return
	}
	var amb *carryover.AmbiguousError
	if errors.As(err, &amb) {
		s.notFound(w, r, err.Error())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := sess.ID
	chunks, err := s.st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	comps, err := s.st.Compactions(ctx, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	injs, err := s.st.Injections(ctx, id, 0)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	slices.Reverse(injs) // oldest first, as the timeline reads
	refs, err := s.chunkRefs(r, injs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	subs, err := retrieve.Subagents(ctx, s.st, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := timeline(sess, chunks, comps, injs, refs)
	if sess.Parent != "" {
		if p, err := s.st.Session(ctx, sess.Parent); err == nil {
			v.Parent = &p
		}
	}
	for _, x := range subs {
		v.Subagents = append(v.Subagents, sessionRow{Session: x, Short: carryover.AgentName(x.ID)})
	}
	title := sess.Title
	if title == "" {
		title = carryover.ShortID(sess.ID)
	}
	s.render(w, r, http.StatusOK, "session", page{Title: title, Data: v})
}

// chunkRefs finds the sessions of the chunks the injections carried (a
// recall may bring chunks of other sessions).
func (s *Server) chunkRefs(r *http.Request, injs []carryover.Injection) (map[int64]chunkRef, error) {
	var ids []int64
	for _, in := range injs {
		ids = append(ids, in.ChunkIDs...)
	}
	refs := map[int64]chunkRef{}
	if len(ids) == 0 {
		return refs, nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	cs, err := s.st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: ids})
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		refs[c.ID] = chunkRef{ID: c.ID, Session: c.SessionID, Turn: c.Turn}
	}
	return refs, nil
}

// searchLimit and searchBudget bound one results page.
const (
	searchLimit  = 25
	searchBudget = searchLimit * 700
)

type hitView struct {
	Session  string
	Title    string
	ChunkID  int64
	Turn     int
	Lines    [2]int
	Score    float64
	Segments []segment
}

type searchView struct {
	Query   string
	Project string
	Hits    []hitView
	Marks   int
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	project := r.URL.Query().Get("p")
	v := searchView{Query: q, Project: project}
	if q == "" {
		s.render(w, r, http.StatusOK, "search", page{Title: "Search", Data: v})
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	res, err := retrieve.Search(ctx, s.st, retrieve.SearchRequest{
		Query:  carryover.Query{Text: q, Project: project, Limit: searchLimit},
		Budget: searchBudget,
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	titles := map[string]string{}
	terms := queryTerms(q)
	for _, h := range res.Results {
		// Drop the provenance line retrieve adds: the page shows its own.
		text := h.Text
		if strings.HasPrefix(text, "[session ") {
			if _, rest, ok := strings.Cut(text, "\n"); ok {
				text = rest
			}
		}
		if _, ok := titles[h.SessionID]; !ok {
			if sess, err := s.st.Session(ctx, h.SessionID); err == nil {
				titles[h.SessionID] = sess.Title
			}
		}
		segs := highlight(text, terms)
		for _, sg := range segs {
			if sg.Mark {
				v.Marks++
			}
		}
		v.Hits = append(v.Hits, hitView{Session: h.SessionID, Title: titles[h.SessionID], ChunkID: h.ChunkID,
			Turn: h.Turn, Lines: h.Lines, Score: h.Score, Segments: segs})
	}
	s.render(w, r, http.StatusOK, "search", page{Title: "Search: " + q, Query: q, Data: v})
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rep, err := stats.Compute(ctx, s.st, stats.Filter{Project: r.URL.Query().Get("p")})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "stats", page{Title: "Stats", Data: statsView{
		Report:  rep,
		Tokens:  tokensChart(rep),
		Latency: latencyChart(rep),
	}})
}
