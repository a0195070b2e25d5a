//go:build unix

package redact_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the test process has used: unlike wall time, it
// does not grow when the machine is busy with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
