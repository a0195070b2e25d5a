package hugeheap

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

func prepare(n int) {
	// Fresh heap memory is known to be zero: the allocation touches none
	// of it, and the heap grows by one mapping of about n bytes.
	b := make([]byte, n+hugePage)
	// Advice is taken for whole huge pages: align the range to them.
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (hugePage - 1))
	whole := (len(b) - off) &^ (hugePage - 1)
	if whole > 0 {
		_ = unix.Madvise(b[off:off+whole], unix.MADV_HUGEPAGE)
	}
	runtime.KeepAlive(b)
	// Freed by the collection, the span's pages go back to the heap's
	// free pages, which the allocations that follow take first.
	runtime.GC()
}
