// Package hugeheap prepares the Go heap of a short-lived process for a
// burst of allocation: it grows the heap at once and asks the kernel to
// back it with transparent huge pages.
//
// A hook that archives a whole transcript touches some 20 MB of fresh
// heap. On Linux with transparent huge pages in "madvise" mode (a common
// default) each 4 KB page of it costs a page fault the first time it is
// used — on a virtual machine some 10 µs each, a fifth of such a hook's
// time — and the Go runtime no longer asks for huge pages itself. Memory
// advised as huge takes one fault per 2 MB.
package hugeheap

// MaxBytes bounds Prepare: more than a hook needs, and a cap on the
// memory it can take.
const MaxBytes = 64 << 20

// minBytes is the least worth preparing: below it the collection Prepare
// runs costs more than the faults it saves.
const minBytes = 8 << 20

// Prepare grows the heap by n bytes (at most MaxBytes), advises the kernel
// to back them with huge pages and frees them for the allocations that
// follow. It runs a garbage collection (a few milliseconds) and takes the
// memory for the process's life: only a short-lived process about to
// allocate some n bytes calls it. It does nothing for n below a few
// megabytes, elsewhere than on Linux, where the kernel's huge pages are
// not given on advice only (with "always" the heap has them already, with
// "never" not at all), and where it accounts memory strictly (the mapping
// would count whole); errors are ignored (the advice is a hint). It
// reports whether the heap's new memory has huge pages: prepared, or
// given them by the kernel's "always".
func Prepare(n int64) (huge bool) {
	if n < minBytes {
		return false
	}
	return prepare(int(min(n, MaxBytes)))
}
