// Package dashboard is what 'carryover watch' shows: a snapshot of the
// archive's statistics, the latest hook calls and injections, laid out as
// text, and the live terminal view (a Bubble Tea model) that refreshes it.
package dashboard

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/termsafe"
)

// Rows is how many of the latest hook calls and injections are shown.
const Rows = 6

// Reader reads what the dashboard shows from a store.
type Reader struct {
	Store   carryover.Store
	Project string // only this project ("" for all)
	DB      string // the store's name, shown in the title
}

// Snapshot is one reading of the store.
type Snapshot struct {
	At         time.Time
	Report     stats.Report
	Runs       []carryover.HookRun
	Injections []carryover.Injection
	Err        error
}

// Read takes a snapshot; its error is in it.
func (w Reader) Read(ctx context.Context) Snapshot {
	s := Snapshot{At: time.Now()}
	if s.Report, s.Err = stats.Compute(ctx, w.Store, stats.Filter{Project: w.Project}); s.Err != nil {
		return s
	}
	if s.Runs, s.Err = w.Store.HookRuns(ctx, carryover.HookRunFilter{Project: w.Project, Limit: Rows}); s.Err != nil {
		return s
	}
	// Injections has no project filter: read more and keep the project's.
	injs, err := w.Store.Injections(ctx, "", Rows*20)
	if s.Err = err; err != nil {
		return s
	}
	for _, in := range injs {
		if w.Project == "" || in.Project == w.Project {
			s.Injections = append(s.Injections, in)
		}
		if len(s.Injections) == Rows {
			break
		}
	}
	return s
}

// Line is a snapshot on one line, for logs and pipes.
func (s Snapshot) Line() string {
	r := s.Report
	b := fmt.Sprintf("%s sessions=%d turns=%d chunks=%d compactions=%d restores=%d recalls=%d tokens_injected=%d",
		s.At.Format("15:04:05"), r.Sessions, r.Turns, r.Chunks, r.Compactions.Total, r.Restores, r.Recalls, r.TokensInjected)
	if len(s.Runs) > 0 {
		h := s.Runs[0]
		b += fmt.Sprintf(" last_hook=%s/%s/%.1fms", h.Event, h.Outcome, ms(h.Latency))
	}
	return b
}

// Styles are the few text styles the dashboard uses, and how it shows
// archived text (projects, events, ids).
type Styles struct {
	title, head, faint, bad func(string) string
	text                    func(string) string
}

// Plain styles nothing and shows archived text as it is: for pipes and
// logs, not a terminal.
func Plain() Styles {
	id := func(s string) string { return s }
	return Styles{id, id, id, id, id}
}

// Terminal styles the dashboard for a terminal, where archived text is
// escaped: an escape sequence in it would act.
func Terminal() Styles {
	r := func(st lipgloss.Style) func(string) string { return func(s string) string { return st.Render(s) } }
	return Styles{
		title: r(lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("39"))),
		head:  r(lipgloss.NewStyle().Bold(true)),
		faint: r(lipgloss.NewStyle().Faint(true)),
		bad:   r(lipgloss.NewStyle().Foreground(lipgloss.Color("203"))),
		text:  termsafe.Line,
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Render lays a snapshot out as text at most width columns wide (0: any).
func (s Snapshot) Render(db string, st Styles, width int) string {
	var b strings.Builder
	r := s.Report
	line := func(format string, args ...any) {
		l := fmt.Sprintf(format, args...)
		if width > 0 {
			l = ansi.Truncate(l, width, "…")
		}
		b.WriteString(l + "\n")
	}
	head := func(s string) { b.WriteString("\n" + st.head(s) + "\n") }
	b.WriteString(st.title("carryover watch") + " " + st.faint(db+" · "+s.At.Format("15:04:05")) + "\n")
	if s.Err != nil {
		b.WriteString(st.bad("error: "+s.Err.Error()) + "\n")
		return b.String()
	}
	if r.Project != "" {
		line("project   %s", st.text(r.Project))
	}
	line("archive   %d sessions · %d turns · %d chunks · %s", r.Sessions, r.Turns, r.Chunks, stats.Bytes(r.StoreBytes))
	line("compacted %d (%d auto, %d manual)", r.Compactions.Total, r.Compactions.Auto, r.Compactions.Manual)
	line("injected  %d restores · %d recalls · %d instructions · %d tokens", r.Restores, r.Recalls, r.Instructions, r.TokensInjected)

	head("Hook latency")
	if len(r.Hooks) == 0 {
		line("%s", st.faint("  no hook runs recorded yet"))
	} else {
		line("  %-28s %6s %9s %9s  %s", "EVENT", "RUNS", "P50", "P95", "OUTCOMES")
		for _, h := range r.Hooks {
			var oc []string
			for _, k := range []string{"ok", "noop", "error", "timeout", "panic"} {
				if n := h.Outcomes[k]; n > 0 {
					oc = append(oc, fmt.Sprintf("%s %d", k, n))
				}
			}
			line("  %-28s %6d %7.1fms %7.1fms  %s", st.text(h.Event), h.Runs, h.LatencyMS.P50, h.LatencyMS.P95, strings.Join(oc, ", "))
		}
	}

	head("Tokens injected by event")
	if len(r.Injected) == 0 {
		line("%s", st.faint("  nothing injected yet"))
	} else {
		line("  %-28s %6s %9s %11s %11s", "EVENT", "COUNT", "TOKENS", "P50/SESSION", "P95/SESSION")
		for _, e := range r.Injected {
			line("  %-28s %6d %9d %11.0f %11.0f", st.text(e.Event), e.Count, e.Tokens, e.PerSession.P50, e.PerSession.P95)
		}
	}

	head("Latest hook calls")
	if len(s.Runs) == 0 {
		line("%s", st.faint("  none recorded yet"))
	}
	for _, h := range s.Runs {
		line("  %s  %-28s %8.1fms  %-7s %6d chars  %s", h.Time.Local().Format("15:04:05"), st.text(h.Event), ms(h.Latency), st.text(h.Outcome), h.Chars, st.text(carryover.ShortID(h.SessionID)))
	}

	head("Latest injections")
	if len(s.Injections) == 0 {
		line("%s", st.faint("  none yet"))
	}
	for _, in := range s.Injections {
		line("  %s  %-28s %s  window %d  %6d chars  ~%d tokens  %d chunks  %d items", in.Time.Local().Format("15:04:05"), st.text(in.Event),
			st.text(carryover.ShortID(in.SessionID)), in.Window, in.Chars, in.Tokens, len(in.ChunkIDs), len(in.ItemIDs))
	}
	return b.String()
}

// Model is the live dashboard: a snapshot read off the UI goroutine every
// period.
type Model struct {
	w      Reader
	every  time.Duration
	ctx    context.Context
	snap   Snapshot
	loaded bool
	width  int
	height int
}

type snapshotMsg Snapshot
type tickMsg struct{}

// NewModel is the dashboard of what r reads, refreshed every period
// until ctx ends.
func NewModel(ctx context.Context, r Reader, every time.Duration) Model {
	return Model{w: r, every: every, ctx: ctx}
}

func (m Model) fetch() tea.Cmd {
	return func() tea.Msg { return snapshotMsg(m.w.Read(m.ctx)) }
}

func (m Model) Init() tea.Cmd { return m.fetch() }

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		case "r":
			return m, m.fetch()
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case snapshotMsg:
		m.snap, m.loaded = Snapshot(msg), true
		return m, tea.Tick(m.every, func(time.Time) tea.Msg { return tickMsg{} })
	case tickMsg:
		return m, m.fetch()
	}
	return m, nil
}

func (m Model) View() tea.View {
	var body string
	if !m.loaded {
		body = "carryover watch: reading " + m.w.DB + " …"
	} else {
		body = m.snap.Render(m.w.DB, Terminal(), m.width)
	}
	body += "\n" + Terminal().faint(fmt.Sprintf("refreshing every %s · r refresh · q quit", m.every))
	if m.height > 0 {
		if ls := strings.Split(body, "\n"); len(ls) > m.height {
			body = strings.Join(ls[:m.height], "\n")
		}
	}
	v := tea.NewView(body)
	v.AltScreen = true
	return v
}
