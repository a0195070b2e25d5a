package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/carryover-dev/carryover/internal/progress"
)

// table is a text table that fits a terminal's width: when its natural
// width is more, the columns marked to shrink lose characters (the widest
// first), their cells cut with "…".
type table struct {
	cols  []column
	rows  [][]string
	notes map[int]bool // rows printed as one line, outside the columns
}

// column is one table column. Min > 0 lets it shrink to that many cells;
// Left cuts its cells at the start (paths: the end says most).
type column struct {
	Name  string
	Min   int
	Left  bool
	Right bool // right-aligned (counts)
	// Drop leaves the column out when the table does not fit (a detail
	// the wide table and --json keep).
	Drop bool
}

func newTable(cols ...column) *table { return &table{cols: cols} }

// add appends a row; missing cells are empty.
func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// note appends a line that spans the table (a separator between rows).
func (t *table) note(line string) {
	if t.notes == nil {
		t.notes = map[int]bool{}
	}
	t.notes[len(t.rows)] = true
	t.rows = append(t.rows, []string{line})
}

// gap is the space between columns.
const gap = 2

// write prints the table within width cells (0: no limit). The header is
// skipped when every column name is empty.
func (t *table) write(w io.Writer, width int) error {
	if width > 0 && t.natural() > width {
		if keep := t.dropped(); keep != nil {
			return keep.write(w, width)
		}
	}
	n := len(t.cols)
	widths := make([]int, n)
	header := false
	for i, c := range t.cols {
		widths[i] = ansi.StringWidth(c.Name)
		header = header || c.Name != ""
	}
	for j, r := range t.rows {
		if t.notes[j] {
			continue
		}
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], ansi.StringWidth(r[i]))
		}
	}
	if width > 0 {
		total := gap * (n - 1)
		for _, x := range widths {
			total += x
		}
		// Take one cell at a time from the widest column that may still
		// shrink: columns end up cut about evenly.
		for ; total > width; total-- {
			best := -1
			for i, c := range t.cols {
				if c.Min > 0 && widths[i] > c.Min && (best < 0 || widths[i] > widths[best]) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			widths[best]--
		}
	}
	var b bytes.Buffer
	line := func(cells []string) {
		var l strings.Builder
		for i, c := range t.cols {
			cell := ""
			if i < len(cells) {
				cell = fitCell(cells[i], widths[i], c.Left)
			}
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(cell))
			if i > 0 {
				l.WriteString(strings.Repeat(" ", gap))
			}
			if c.Right {
				l.WriteString(pad + cell)
			} else if i < n-1 {
				l.WriteString(cell + pad)
			} else {
				l.WriteString(cell)
			}
		}
		s := strings.TrimRight(l.String(), " ")
		if width > 0 && ansi.StringWidth(s) > width {
			// The fixed columns alone are too wide: cut the line.
			s = ansi.Truncate(s, width, "…")
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if header {
		names := make([]string, n)
		for i, c := range t.cols {
			names[i] = c.Name
		}
		line(names)
	}
	for j, r := range t.rows {
		if t.notes[j] {
			s := r[0]
			if width > 0 {
				s = fitCell(s, width, false)
			}
			b.WriteString(s + "\n")
			continue
		}
		line(r)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// natural is the table's width uncut.
func (t *table) natural() int {
	total := gap * (len(t.cols) - 1)
	for i, c := range t.cols {
		x := ansi.StringWidth(c.Name)
		for j, r := range t.rows {
			if !t.notes[j] && i < len(r) {
				x = max(x, ansi.StringWidth(r[i]))
			}
		}
		total += x
	}
	return total
}

// dropped is the table without its Drop columns, or nil when it has none.
func (t *table) dropped() *table {
	var keep []int
	for i, c := range t.cols {
		if !c.Drop {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(t.cols) {
		return nil
	}
	d := &table{notes: t.notes}
	for _, i := range keep {
		d.cols = append(d.cols, t.cols[i])
	}
	for j, r := range t.rows {
		if t.notes[j] {
			d.rows = append(d.rows, r)
			continue
		}
		row := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(r) {
				row = append(row, r[i])
			}
		}
		d.rows = append(d.rows, row)
	}
	return d
}

// fitCell cuts s to at most width cells with "…", at its start when left.
func fitCell(s string, width int, left bool) string {
	sw := ansi.StringWidth(s)
	if sw <= width {
		return s
	}
	if width <= 1 {
		return strings.Repeat("…", width)
	}
	if left {
		return ansi.TruncateLeft(s, sw-width+1, "…")
	}
	return ansi.Truncate(s, width, "…")
}

// termWidth is the width tables are cut to: COLUMNS when set, else the
// terminal's when stdout is one, else 0 (no limit: a pipe gets it all).
// wide (--wide) turns the limit off.
func (a *app) termWidth(wide bool) int {
	if wide {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(a.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if f, ok := a.stdout.(*os.File); ok && progress.IsTerminal(f) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// termHeight is the terminal's height when stdout is one (LINES when
// set), else 0.
func (a *app) termHeight() int {
	f, ok := a.stdout.(*os.File)
	if !ok || !progress.IsTerminal(f) {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(a.getenv("LINES"))); err == nil && n > 0 {
		return n
	}
	if _, h, err := term.GetSize(f.Fd()); err == nil && h > 0 {
		return h
	}
	return 0
}

// page writes out to stdout, through the user's pager ($PAGER, else
// less -R) when stdout is a terminal and out is taller than it. A pager
// that cannot start is no error: the text goes to stdout.
func (a *app) page(out []byte, noPager bool) error {
	h := a.termHeight()
	if noPager || h == 0 || bytes.Count(out, []byte("\n")) < h {
		_, err := a.stdout.Write(out)
		return err
	}
	argv := strings.Fields(a.getenv("PAGER"))
	if len(argv) == 0 {
		argv = []string{"less", "-R"}
	}
	if argv[0] == "cat" {
		_, err := a.stdout.Write(out)
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(out)
	cmd.Stdout, cmd.Stderr = a.stdout, a.stderr
	if a.getenv("LESS") == "" {
		// -R shows the bold the output uses; -F quits when it fits.
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	if err := cmd.Start(); err != nil {
		a.log.Info("pager did not start", "pager", argv[0], "err", err)
		_, err := a.stdout.Write(out)
		return err
	}
	// Quitting the pager early is the user's choice, not a failure.
	_ = cmd.Wait()
	return nil
}
