package redact

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// kindPrefix is an optional "kind: " before a pattern line's regexp. It
// is compiled on first use: every hook process loads this package, and
// few read a patterns file.
var kindPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z0-9-]{0,39}):\s+`) })

// ParsePatterns reads user patterns, one Go regexp per line; blank lines
// and lines starting with # are skipped. A line may start with "kind: " to
// name the label's kind (default "custom"). A group named "secret", or else
// the first group, selects the part to mask. Invalid lines are returned as
// errors, without their text (a pattern may hold a secret), and skipped.
func ParsePatterns(r io.Reader) ([]Pattern, []error) {
	var ps []Pattern
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind := "custom"
		if m := kindPrefix().FindStringSubmatch(line); m != nil {
			kind, line = m[1], line[len(m[0]):]
		}
		re, err := regexp.Compile(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: invalid regexp: %s", n, reason(err)))
			continue
		}
		if re.MatchString("") {
			errs = append(errs, fmt.Errorf("line %d: the pattern matches the empty string", n))
			continue
		}
		ps = append(ps, Pattern{Kind: kind, Re: re})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("read patterns: %w", err))
	}
	return ps, errs
}

// reason is a regexp error's code, without the expression it quotes.
func reason(err error) string {
	var e *syntax.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return "syntax error"
}
