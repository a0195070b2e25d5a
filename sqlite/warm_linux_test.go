package sqlite_test

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
	"modernc.org/libc"

	"github.com/carryover-dev/carryover/sqlite"
)

// threadFaults counts the calling thread's minor page faults.
func threadFaults(t *testing.T) int64 {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// TestWarmAllocatorPrefaults checks that the memory SQLite allocates after
// WarmAllocator is already mapped: the regions it allocates next and
// writes whole take (almost) no page faults, where fresh ones take one
// per 4 KiB page.
func TestWarmAllocatorPrefaults(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tls := libc.NewTLS()
	defer tls.Close()
	const region, n = 60 << 10, sqlite.WarmPool / (64 << 10) / 2
	// The faults of writing n regions, which are freed after.
	write := func() int64 {
		var ps []uintptr
		before := threadFaults(t)
		for range n {
			p := libc.Xmalloc(tls, region)
			if p == 0 {
				t.Fatal("malloc failed")
			}
			libc.Xmemset(tls, p, 1, region)
			ps = append(ps, p)
		}
		faults := threadFaults(t) - before
		for _, p := range ps {
			libc.Xfree(tls, p)
		}
		return faults
	}
	// Fill the pool past its committed part, so that what is on top of
	// it now was handed back to the OS: writing there faults.
	var hold []uintptr
	for range 3 * sqlite.WarmPool / (64 << 10) {
		hold = append(hold, libc.Xmalloc(tls, region))
	}
	for i := len(hold) - 1; i >= 0; i-- {
		libc.Xfree(tls, hold[i])
	}
	cold := write()
	sqlite.WarmAllocator()
	warm := write()
	t.Logf("page faults writing %d regions: %d cold, %d after WarmAllocator", n, cold, warm)
	if cold < n*region/(4<<10)/2 {
		t.Skipf("writing fresh memory took only %d faults: nothing to measure", cold)
	}
	if warm > cold/10 {
		t.Errorf("after WarmAllocator writing %d regions took %d page faults, not under a tenth of %d", n, warm, cold)
	}
}
