package mcpserver

import (
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-20T09:16:30Z":      time.Date(2026, 11, 20, 9, 16, 30, 0, time.UTC),
		"2026-11-20T10:16:30+01:00": time.Date(2026, 11, 20, 9, 16, 30, 0, time.UTC),
		"2026-11-20":                time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		"7d":                        now.AddDate(0, 0, -7),
		"1.5d":                      now.Add(-36 * time.Hour),
		"24h":                       now.Add(-24 * time.Hour),
		" 90m ":                     now.Add(-90 * time.Minute),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "7", "yesterday", "-7d", "0h", "NaNd", "1e9d", "7 d"} {
		if got, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q) = %v, want an error", in, got)
		}
	}
}
