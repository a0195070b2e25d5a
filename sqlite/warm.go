package sqlite

import "modernc.org/libc"

// WarmPool is how much of SQLite's allocator WarmAllocator faults in: the
// pool of free 64 KiB regions that its allocator (modernc.org/memory)
// keeps committed. More would be handed back to the OS as it is freed.
const WarmPool = 4 << 20

// WarmAllocator faults in WarmPool bytes of the memory SQLite allocates
// from, and frees them into the allocator's pool of committed regions, so
// that a large write that follows (a cold ingest, which grows SQLite's page
// cache and full-text buffers by some 5 MB) takes pages already mapped
// instead of a page fault per 4 KiB (some 800, about 10 ms where a fault
// costs 12 µs, as on a VM). It is meant to run in a goroutine on an
// otherwise idle core while the caller opens the store and reads. Should
// the allocator stop pooling, it only costs its own time.
func WarmAllocator() {
	// Larger than the allocator's slot sizes and, with its header, one
	// 64 KiB region each.
	const region = 60 << 10
	tls := libc.NewTLS()
	defer tls.Close()
	ps := make([]uintptr, 0, WarmPool/(64<<10))
	for range cap(ps) {
		p := libc.Xmalloc(tls, region)
		if p == 0 {
			break
		}
		libc.Xmemset(tls, p, 0, region) // the faults, here
		ps = append(ps, p)
	}
	for _, p := range ps {
		libc.Xfree(tls, p)
	}
}
