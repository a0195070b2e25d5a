package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// thpSetting is where Linux says when it gives transparent huge pages.
const thpSetting = "/sys/kernel/mm/transparent_hugepage/enabled"

// overcommitSetting is where Linux says whether it counts memory mapped
// but never touched against a limit ("2": strict accounting).
const overcommitSetting = "/proc/sys/vm/overcommit_memory"

// thp is the kernel's setting for transparent huge pages: "always",
// "madvise" (only to memory advised for them), "never", or "" when unknown.
func thp() string {
	b, err := os.ReadFile(thpSetting)
	if err != nil {
		return ""
	}
	for _, s := range []string{"always", "madvise", "never"} {
		if bytes.Contains(b, []byte("["+s+"]")) {
			return s
		}
	}
	return ""
}

// onAdvice reports whether the kernel gives huge pages only to memory
// advised for them.
func onAdvice() bool { return thp() == "madvise" }

// strictCommit reports whether the kernel accounts every mapping strictly:
// there the memory prepared counts whole against the limit, and a failed
// allocation ends a Go process (a hook must exit 0), so none is made.
func strictCommit() bool {
	b, err := os.ReadFile(overcommitSetting)
	return err == nil && string(bytes.TrimSpace(b)) == "2"
}

func prepare(n int) bool {
	switch thp() {
	case "always":
		return true
	case "madvise":
		if strictCommit() {
			return false
		}
	default:
		return false
	}
	// No collection while the heap grows (the allocation would start one):
	// one collection, below, frees the memory.
	gogc := debug.SetGCPercent(-1)
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
	debug.SetGCPercent(gogc)
	// Freed by the collection, the mapping's pages go back to the heap's
	// free pages, which the allocations that follow take.
	runtime.GC()
	return true
}
