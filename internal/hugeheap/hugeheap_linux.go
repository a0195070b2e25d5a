package hugeheap

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// firstMapping is the size and alignment of the heap's first mapping
// (the runtime grows the heap 4 MB at a time).
const firstMapping = 4 << 20

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
	// But first they take what is left of the heap's first mapping, in
	// use since the process started and so made of small pages: its huge
	// pages are collapsed, a copy of what is there (Linux 6.1 and later).
	// What packages allocate as they start lies in it: os.Stdin, say.
	first := uintptr(unsafe.Pointer(os.Stdin)) &^ (firstMapping - 1)
	for p := first; p < first+firstMapping; p += hugePage {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, p, hugePage, unix.MADV_HUGEPAGE)
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, p, hugePage, unix.MADV_COLLAPSE)
	}
}
