//go:build !unix

package ingest_test

import "time"

// cpuTime falls back to wall time where rusage is not available.
func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
