package hugeheap

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// hugeAdvised counts the process's mappings advised for huge pages ("hg"
// in smaps' VmFlags).
func hugeAdvised(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if flags, ok := strings.CutPrefix(sc.Text(), "VmFlags:"); ok && strings.Contains(" "+flags+" ", " hg ") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPrepareAdvisesHeap(t *testing.T) {
	if !onAdvice() {
		t.Skipf("the kernel does not give transparent huge pages on advice (%s): Prepare does nothing", thpSetting)
	}
	before := hugeAdvised(t)
	Prepare(minBytes - 1)
	if got := hugeAdvised(t); got != before {
		t.Fatalf("Prepare below the minimum advised %d mappings, want none", got-before)
	}
	Prepare(16 << 20)
	if got := hugeAdvised(t); got <= before {
		t.Fatalf("after Prepare(16 MB): %d mappings advised for huge pages, want more than %d", got, before)
	}
}

// TestPrepareReportsHuge: Prepare says the heap has huge pages exactly
// when the kernel gives them to it: always, or on the advice it gives.
func TestPrepareReportsHuge(t *testing.T) {
	want := thp() == "always" || (thp() == "madvise" && !strictCommit())
	if got := Prepare(minBytes - 1); got {
		t.Errorf("Prepare below the minimum reported huge pages")
	}
	if got := Prepare(16 << 20); got != want {
		t.Errorf("Prepare(16 MB) with the setting %q: reported huge pages %v, want %v", thp(), got, want)
	}
}
