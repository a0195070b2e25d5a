package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/stats"
)

// watchRows is how many of the latest hook calls and injections are shown.
const watchRows = 6

func (a *app) cmdWatch(ctx context.Context, args []string) error {
	fl := a.newFlags("watch")
	interval := fl.Duration("interval", 0, "refresh period (default 2s on a terminal; when not a terminal, print a line every period instead of one snapshot)")
	project := fl.String("project", "", "only this project directory")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *interval < 0 || *interval > 0 && *interval < 100*time.Millisecond {
		return usageErr{"watch: --interval must be at least 100ms"}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStoreRead(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	w := watcher{st: st, project: *project, db: cfg.DB}
	if !progress.IsTerminal(a.stdout) || !progress.IsTerminal(a.stdin) {
		return w.plain(ctx, a.stdout, *interval)
	}
	every := *interval
	if every == 0 {
		every = 2 * time.Second
	}
	m := watchModel{w: w, every: every, ctx: ctx}
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(a.stdin), tea.WithOutput(a.stdout))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// watcher reads what the dashboard shows.
type watcher struct {
	st      carryover.Store
	project string
	db      string
}

// snapshot is one reading of the store.
type snapshot struct {
	At         time.Time
	Report     stats.Report
	Runs       []carryover.HookRun
	Injections []carryover.Injection
	Err        error
}

func (w watcher) read(ctx context.Context) snapshot {
	s := snapshot{At: time.Now()}
	if s.Report, s.Err = stats.Compute(ctx, w.st, stats.Filter{Project: w.project}); s.Err != nil {
		return s
	}
	if s.Runs, s.Err = w.st.HookRuns(ctx, carryover.HookRunFilter{Project: w.project, Limit: watchRows}); s.Err != nil {
		return s
	}
	// Injections has no project filter: read more and keep the project's.
	injs, err := w.st.Injections(ctx, "", watchRows*20)
	if s.Err = err; err != nil {
		return s
	}
	for _, in := range injs {
		if w.project == "" || in.Project == w.project {
			s.Injections = append(s.Injections, in)
		}
		if len(s.Injections) == watchRows {
			break
		}
	}
	return s
}

// plain prints one snapshot, or with a period a summary line each period
// until ctx ends: for pipes, logs and dumb terminals.
func (w watcher) plain(ctx context.Context, out io.Writer, every time.Duration) error {
	if every == 0 {
		s := w.read(ctx)
		if s.Err != nil {
			return fmt.Errorf("watch: %w", s.Err)
		}
		_, err := io.WriteString(out, s.render(w.db, plainStyles(), 0)+"\n")
		return err
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s := w.read(ctx)
		if s.Err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watch: %w", s.Err)
		}
		if _, err := fmt.Fprintln(out, s.line()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// line is a snapshot on one line.
func (s snapshot) line() string {
	r := s.Report
	b := fmt.Sprintf("%s sessions=%d turns=%d chunks=%d compactions=%d restores=%d recalls=%d tokens_injected=%d",
		s.At.Format("15:04:05"), r.Sessions, r.Turns, r.Chunks, r.Compactions.Total, r.Restores, r.Recalls, r.TokensInjected)
	if len(s.Runs) > 0 {
		h := s.Runs[0]
		b += fmt.Sprintf(" last_hook=%s/%s/%.1fms", h.Event, h.Outcome, ms(h.Latency))
	}
	return b
}

// styles are the few text styles the dashboard uses.
type styles struct {
	title, head, faint, bad func(string) string
}

func plainStyles() styles {
	id := func(s string) string { return s }
	return styles{id, id, id, id}
}

func termStyles() styles {
	r := func(st lipgloss.Style) func(string) string { return func(s string) string { return st.Render(s) } }
	return styles{
		title: r(lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("39"))),
		head:  r(lipgloss.NewStyle().Bold(true)),
		faint: r(lipgloss.NewStyle().Faint(true)),
		bad:   r(lipgloss.NewStyle().Foreground(lipgloss.Color("203"))),
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// render lays a snapshot out as text at most width columns wide (0: any).
func (s snapshot) render(db string, st styles, width int) string {
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
		line("project   %s", r.Project)
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
			line("  %-28s %6d %7.1fms %7.1fms  %s", h.Event, h.Runs, h.LatencyMS.P50, h.LatencyMS.P95, strings.Join(oc, ", "))
		}
	}

	head("Tokens injected by event")
	if len(r.Injected) == 0 {
		line("%s", st.faint("  nothing injected yet"))
	} else {
		line("  %-28s %6s %9s %11s %11s", "EVENT", "COUNT", "TOKENS", "P50/SESSION", "P95/SESSION")
		for _, e := range r.Injected {
			line("  %-28s %6d %9d %11.0f %11.0f", e.Event, e.Count, e.Tokens, e.PerSession.P50, e.PerSession.P95)
		}
	}

	head("Latest hook calls")
	if len(s.Runs) == 0 {
		line("%s", st.faint("  none recorded yet"))
	}
	for _, h := range s.Runs {
		line("  %s  %-28s %8.1fms  %-7s %6d chars  %s", h.Time.Local().Format("15:04:05"), h.Event, ms(h.Latency), h.Outcome, h.Chars, carryover.ShortID(h.SessionID))
	}

	head("Latest injections")
	if len(s.Injections) == 0 {
		line("%s", st.faint("  none yet"))
	}
	for _, in := range s.Injections {
		line("  %s  %-28s %s  window %d  %6d chars  ~%d tokens  %d chunks  %d items", in.Time.Local().Format("15:04:05"), in.Event,
			carryover.ShortID(in.SessionID), in.Window, in.Chars, in.Tokens, len(in.ChunkIDs), len(in.ItemIDs))
	}
	return b.String()
}

// The dashboard: a snapshot read off the UI goroutine every period.
type watchModel struct {
	w      watcher
	every  time.Duration
	ctx    context.Context
	snap   snapshot
	loaded bool
	width  int
	height int
}

type snapshotMsg snapshot
type tickMsg struct{}

func (m watchModel) fetch() tea.Cmd {
	return func() tea.Msg { return snapshotMsg(m.w.read(m.ctx)) }
}

func (m watchModel) Init() tea.Cmd { return m.fetch() }

func (m watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
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
		m.snap, m.loaded = snapshot(msg), true
		return m, tea.Tick(m.every, func(time.Time) tea.Msg { return tickMsg{} })
	case tickMsg:
		return m, m.fetch()
	}
	return m, nil
}

func (m watchModel) View() tea.View {
	var body string
	if !m.loaded {
		body = "carryover watch: reading " + m.w.db + " …"
	} else {
		body = m.snap.render(m.w.db, termStyles(), m.width)
	}
	body += "\n" + termStyles().faint(fmt.Sprintf("refreshing every %s · r refresh · q quit", m.every))
	if m.height > 0 {
		if ls := strings.Split(body, "\n"); len(ls) > m.height {
			body = strings.Join(ls[:m.height], "\n")
		}
	}
	v := tea.NewView(body)
	v.AltScreen = true
	return v
}
