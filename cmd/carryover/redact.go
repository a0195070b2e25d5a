package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover/redact"
)

// Bounds of the user patterns file: hooks read it on every run.
const (
	maxPatternsBytes = 64 << 10
	maxPatterns      = 200
)

// loadRedactor builds the redactor: the built-in detectors plus the
// patterns of c.RedactPatterns. An unreadable file or an invalid line is
// added to c.Problems (the CLI and doctor show them, hooks ignore them)
// and skipped.
func (c *config) loadRedactor() *redact.Redactor {
	if c.RedactPatterns == "" {
		return redact.New(redact.Options{})
	}
	problem := func(format string, args ...any) {
		c.Problems = append(c.Problems, "redact_patterns "+c.RedactPatterns+": "+fmt.Sprintf(format, args...))
	}
	f, err := os.Open(c.RedactPatterns)
	if err != nil {
		problem("%v", err)
		return redact.New(redact.Options{})
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPatternsBytes+1))
	if err != nil {
		problem("%v", err)
		return redact.New(redact.Options{})
	}
	if len(data) > maxPatternsBytes {
		problem("larger than %d KiB: only its first part is used", maxPatternsBytes>>10)
		data = data[:maxPatternsBytes]
	}
	ps, errs := redact.ParsePatterns(strings.NewReader(string(data)))
	for _, e := range errs {
		problem("%v (the line is ignored)", e)
	}
	if len(ps) > maxPatterns {
		problem("%d patterns: only the first %d are used", len(ps), maxPatterns)
		ps = ps[:maxPatterns]
	}
	return redact.New(redact.Options{Extra: ps})
}

// redact masks the secrets in s with the configured redactor.
func (a *app) redact(s string) (string, map[string]int) {
	if a.redactor == nil {
		a.redactor = redact.New(redact.Options{})
	}
	return a.redactor.Redact(s)
}

// warnRedactProblems prints the problems of the redact_patterns file: a
// pattern the user expects to mask secrets is being ignored.
func (a *app) warnRedactProblems(cfg config) {
	for _, p := range cfg.Problems {
		if strings.HasPrefix(p, "redact_patterns ") || strings.Contains(p, ": redact_patterns: ") {
			fmt.Fprintf(a.stderr, "carryover: warning: %s\n", p)
		}
	}
}

// redactHandler masks secrets in log records, in case an error message
// ever quotes one: the log is meant to hold paths and errors only.
type redactHandler struct {
	h slog.Handler
	r *redact.Redactor
}

func (h redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	msg, _ := h.r.Redact(rec.Message)
	out := slog.NewRecord(rec.Time, rec.Level, msg, rec.PC)
	rec.Attrs(func(at slog.Attr) bool {
		out.AddAttrs(h.attr(at))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h redactHandler) attr(at slog.Attr) slog.Attr {
	v := at.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s, _ := h.r.Redact(v.String())
		return slog.String(at.Key, s)
	case slog.KindAny:
		s, c := h.r.Redact(v.String())
		if c != nil {
			return slog.String(at.Key, s)
		}
	case slog.KindGroup:
		as := v.Group()
		out := make([]any, len(as))
		for i, g := range as {
			out[i] = h.attr(g)
		}
		return slog.Group(at.Key, out...)
	}
	return at
}

func (h redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, at := range as {
		out[i] = h.attr(at)
	}
	return redactHandler{h.h.WithAttrs(out), h.r}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h.h.WithGroup(name), h.r}
}

func countAll(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// kindList names the kinds of counts, sorted.
func kindList(counts map[string]int) string {
	ks := make([]string, 0, len(counts))
	for k := range counts {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}
