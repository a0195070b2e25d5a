package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/termsafe"
)

// jsonChunk is a chunk as search and get print it with --json, one object
// a line. The field names are stable: scripts read them.
type jsonChunk struct {
	Chunk   int64     `json:"chunk"`
	Session string    `json:"session"`
	Short   string    `json:"short"`
	Project string    `json:"project"`
	Time    time.Time `json:"time"`
	Turn    int       `json:"turn"`
	Lines   [2]int    `json:"lines"`
	Score   *float64  `json:"score,omitempty"`
	Band    string    `json:"band,omitempty"`
	Text    string    `json:"text"`
}

// jsonLine is a raw transcript line as get prints it with --json: the
// line's own JSON, or its text when it is not JSON.
type jsonLine struct {
	Session string          `json:"session"`
	Line    int             `json:"line"`
	JSON    json.RawMessage `json:"json,omitempty"`
	Text    *string         `json:"text,omitempty"`
}

func (a *app) cmdGet(ctx context.Context, args []string) error {
	fl := a.newFlags("get")
	asJSON := fl.Bool("json", false, "print one JSON object a line: each chunk, or each raw transcript line")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr{"get: give chunk ids (as search shows them) or SESSION:A-B"}
	}
	var ids []int64
	var ranges []retrieve.GetRef
	for _, p := range pos {
		ref, err := retrieve.ParseGetRef(p)
		if err != nil {
			return usageErr{"get: " + err.Error()}
		}
		if ref.ChunkID > 0 {
			ids = append(ids, ref.ChunkID)
		} else {
			ranges = append(ranges, ref)
		}
	}
	st, err := a.readStoreOnce(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	defer w.Flush()
	if len(ids) > 0 {
		chunks, missing, err := retrieve.ChunksByID(ctx, st, ids)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			fmt.Fprintf(a.stderr, "carryover: no chunk %s\n", retrieve.JoinIDs(missing))
		}
		for _, c := range chunks {
			if err := a.writeChunk(w, sh, c, *asJSON); err != nil {
				return err
			}
		}
	}
	for _, r := range ranges {
		s, err := findSession(ctx, st, r.Session)
		if err != nil {
			return err
		}
		n, err := a.writeRawRange(ctx, w, st, s, r.From, r.To, *asJSON)
		if err != nil || n > 0 {
			if err != nil {
				return err
			}
			continue
		}
		// Archived before the raw archive kept lines: its chunks.
		chunks, err := retrieve.RangeChunks(ctx, st, s, r.From, r.To)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			if err := a.writeChunk(w, sh, c, *asJSON); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// writeChunk prints a chunk with where it comes from, for a terminal (its
// text escaped) or as JSON.
func (a *app) writeChunk(w io.Writer, sh *carryover.IDShortener, c carryover.Chunk, asJSON bool) error {
	if asJSON {
		return a.writeJSONLine(w, jsonChunk{Chunk: c.ID, Session: c.SessionID, Short: sh.Short(c.SessionID), Project: c.Project,
			Time: c.Start, Turn: c.Turn, Lines: [2]int{c.FirstLine, c.LastLine}, Text: c.Text})
	}
	text := strings.TrimSpace(c.Text)
	if text == "" {
		text = c.Summary
	}
	_, err := fmt.Fprintf(w, "── chunk %d · %s · %s · session %s · turn %d · lines %d-%d\n%s\n\n", c.ID,
		termsafe.Line(a.shortPath(c.Project)), c.Start.Local().Format("2006-01-02 15:04"), sh.Short(c.SessionID),
		c.Turn, c.FirstLine, c.LastLine, termsafe.String(text))
	return err
}

// writeRawRange prints the session's raw lines from..to and returns how
// many it printed: 0 when the raw archive has none there.
func (a *app) writeRawRange(ctx context.Context, w io.Writer, st carryover.Store, s carryover.Session, from, to int, asJSON bool) (int, error) {
	tty := progress.IsTerminal(a.stdout)
	n := 0
	for {
		lines, end, err := retrieve.RawLines(ctx, st, s.ID, from, to, rawPage)
		if err != nil || len(lines) == 0 {
			return n, err
		}
		if n == 0 && !asJSON {
			fmt.Fprintf(w, "── session %s · lines %s, as archived\n", carryover.ShortID(s.ID), retrieve.FormatLines(lines[0].Line, end))
		}
		for _, l := range lines {
			switch {
			case asJSON && json.Valid(l.Text):
				err = a.writeJSONLine(w, jsonLine{Session: s.ID, Line: l.Line, JSON: l.Text})
			case asJSON:
				text := string(l.Text)
				err = a.writeJSONLine(w, jsonLine{Session: s.ID, Line: l.Line, Text: &text})
			case tty:
				_, err = fmt.Fprintf(w, "%s\n", termsafe.RawLine(l.Text))
			default:
				_, err = fmt.Fprintf(w, "%s\n", l.Text)
			}
			if err != nil {
				return n, err
			}
		}
		n += len(lines)
		from = lines[len(lines)-1].Line + 1
		if from > end {
			return n, nil
		}
		to = end
	}
}

// writeJSONLine prints v as one line of JSON. On a terminal what
// encoding/json leaves raw and a terminal acts on is escaped too.
func (a *app) writeJSONLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if progress.IsTerminal(a.stdout) {
		data = termsafe.JSON(data)
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// writeJSON prints v as indented JSON, escaped as writeJSONLine does.
func (a *app) writeJSON(v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if progress.IsTerminal(a.stdout) {
		data = termsafe.JSON(data)
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", data)
	return err
}

// shortPath shows a path under the home directory as ~/…: projects are
// repository roots, and their full paths mostly repeat $HOME.
func (a *app) shortPath(p string) string {
	home := a.getenv("HOME")
	if home == "" || p == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		if rel == "." {
			return "~"
		}
		return "~/" + rel
	}
	return p
}
