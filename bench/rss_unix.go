//go:build unix && !darwin

package bench

import (
	"os"
	"syscall"
)

// peakRSSMB is the peak resident set of a process that has exited, in MB;
// Linux and the BSDs report it in kilobytes.
func peakRSSMB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}
