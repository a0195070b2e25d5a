//go:build !unix

package bench

import "os"

// peakRSSMB is 0 (not measured) here: Windows keeps a process's peak
// working set only while its handle is open, and os/exec closes it on
// Wait.
func peakRSSMB(*os.ProcessState) float64 { return 0 }
