package bench

import (
	"fmt"
	"os"
	"strings"

	"github.com/carryover-dev/carryover/retrieve"
)

// SharesValue reads a restore's budget shares as five comma-separated
// fractions, now,files,commands,facts,steps: a flag.Value for a sweep.
type SharesValue struct{ Shares *retrieve.RestoreShares }

func (f SharesValue) String() string {
	if f.Shares == nil {
		return ""
	}
	s := f.Shares
	return fmt.Sprintf("%g,%g,%g,%g,%g", s.Now, s.Files, s.Commands, s.Facts, s.Steps)
}

func (f SharesValue) Set(v string) error {
	var sh retrieve.RestoreShares
	if _, err := fmt.Sscanf(strings.ReplaceAll(v, ",", " "), "%g %g %g %g %g", &sh.Now, &sh.Files, &sh.Commands, &sh.Facts, &sh.Steps); err != nil {
		return fmt.Errorf("want five fractions now,files,commands,facts,steps: %w", err)
	}
	*f.Shares = sh
	return nil
}

// CheckPaths reports the first of paths (transcripts or directories of
// them) that cannot be read, before a benchmark starts on the others.
func CheckPaths(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	return nil
}

// thisOr is exe, or when it is "" the running binary: the carryover that
// measures itself.
func thisOr(exe string) (string, error) {
	if exe != "" {
		return exe, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the binary to measure: %w", err)
	}
	return exe, nil
}
