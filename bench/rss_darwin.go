package bench

import (
	"os"
	"syscall"
)

// peakRSSMB is the peak resident set of a process that has exited, in MB;
// macOS reports it in bytes.
func peakRSSMB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return 0
}
