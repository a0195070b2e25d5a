//go:build unix

package ingest

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used: on a busy machine
// it moves far less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
