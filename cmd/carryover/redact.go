package main

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover/redact"
)

// redact masks the secrets in s with the configured redactor.
func (a *app) redact(s string) (string, map[string]int) {
	if a.redactor == nil {
		a.redactor = redact.New(redact.Options{})
	}
	return a.redactor.Redact(s)
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
