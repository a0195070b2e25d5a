package retention

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"90d": 90 * day, "2w": 14 * day, "36h": 36 * time.Hour, "1w2d": 9 * day, "1.5d": 36 * time.Hour,
		"45m": 45 * time.Minute, " 7D ": 7 * day, "30s": 30 * time.Second,
	} {
		got, err := ParseAge(in)
		if err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "90", "d", "3y", "-2d", "0d", "2dd", "1e3d", "99999999w", "1.2.3d"} {
		if got, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"2GB": 2e9, "500MB": 500e6, "1.5GiB": 3 << 29, "10KiB": 10240, "100": 100, "7b": 7, "2 mb": 2e6,
		"1G": 1 << 30, "3k": 3072, "1TB": 1e12,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GB", "2XB", "-1GB", "1e3", "2 G B", "99999999999TB"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 282624: "282.6 kB", 2e9: "2.0 GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
