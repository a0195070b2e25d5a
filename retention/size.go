package retention

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ParseAge reads an age such as 90d, 2w, 36h, 1w2d or 45m (w weeks, d days,
// h hours, m minutes, s seconds).
func ParseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: want an age such as 90d, 2w or 36h (units w, d, h, m, s)", s)
	rest := strings.ToLower(strings.TrimSpace(s))
	if rest == "" {
		return 0, bad
	}
	var total float64
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
		if i <= 0 {
			return 0, bad
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, bad
		}
		unit := map[byte]time.Duration{'w': 7 * 24 * time.Hour, 'd': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute, 's': time.Second}[rest[i]]
		if unit == 0 {
			return 0, bad
		}
		total += n * float64(unit)
		rest = rest[i+1:]
	}
	if total <= 0 {
		return 0, fmt.Errorf("%q: the age must be positive", s)
	}
	if total > float64(100*365*24*time.Hour) {
		return 0, fmt.Errorf("%q: more than 100 years", s)
	}
	return time.Duration(total), nil
}

// ParseSize reads a size: bytes, or a number with a unit, decimal (KB, MB,
// GB, TB) or binary (KiB, MiB, GiB, TiB, and K, M, G, T as in du).
func ParseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q: want a size such as 2GB, 500MB or 1.5GiB", s)
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, bad
	}
	mult, ok := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
	}[unit]
	if !ok {
		return 0, bad
	}
	v := n * mult
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(v), nil
}

// FormatSize prints bytes with a decimal unit: 1.2 MB.
func FormatSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, exp := float64(n), 0
	for v >= unit && exp < 4 {
		v /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", v, "kMGT"[exp-1])
}
