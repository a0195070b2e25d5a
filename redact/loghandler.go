package redact

import (
	"context"
	"log/slog"
)

// LogHandler masks secrets in log records, in case an error message ever
// quotes one: a log is meant to hold paths and errors only. Next writes
// the masked records; Redactor masks them.
type LogHandler struct {
	Next     slog.Handler
	Redactor *Redactor
}

func (h LogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.Next.Enabled(ctx, l) }

func (h LogHandler) Handle(ctx context.Context, rec slog.Record) error {
	msg, _ := h.Redactor.Redact(rec.Message)
	out := slog.NewRecord(rec.Time, rec.Level, msg, rec.PC)
	rec.Attrs(func(at slog.Attr) bool {
		out.AddAttrs(h.attr(at))
		return true
	})
	return h.Next.Handle(ctx, out)
}

func (h LogHandler) attr(at slog.Attr) slog.Attr {
	v := at.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s, _ := h.Redactor.Redact(v.String())
		return slog.String(at.Key, s)
	case slog.KindAny:
		s, c := h.Redactor.Redact(v.String())
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

func (h LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, at := range as {
		out[i] = h.attr(at)
	}
	return LogHandler{h.Next.WithAttrs(out), h.Redactor}
}

func (h LogHandler) WithGroup(name string) slog.Handler {
	return LogHandler{h.Next.WithGroup(name), h.Redactor}
}
