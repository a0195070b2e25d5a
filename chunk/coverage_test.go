package chunk_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/chunk"
)

// coverageFloor is the least fraction of the compaction-survival dev facts
// whose answer must appear in some chunk of their session.
const coverageFloor = 0.95

type benchItem struct {
	ID      string   `json:"id"`
	Session string   `json:"session"`
	Answers []string `json:"answers"`
	Kind    string   `json:"kind"`
}

// TestCoverage checks that the facts a real compaction summary lost stay
// findable in the rendered chunks: for each benchmark item, some chunk Text
// of its session contains one of its answers (case-insensitive).
func TestCoverage(t *testing.T) {
	shared := sharedDir(t)
	f, err := os.Open(filepath.Join(shared, "bench", "compaction-survival", "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []benchItem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it benchItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(items) == 0 {
		t.Fatal("no benchmark items")
	}

	texts := map[string]string{} // session → all chunk texts, lower-cased
	hits, total := map[string]int{}, map[string]int{}
	found := 0
	for _, it := range items {
		text, ok := texts[it.Session]
		if !ok {
			es := readEntries(t, filepath.Join(shared, "data", "transcripts", "spotter", it.Session+".jsonl"))
			r := chunk.Build(it.Session, es[0].Cwd, es, chunk.NewCursor(), chunk.Options{})
			var b strings.Builder
			for _, c := range r.Chunks {
				b.WriteString(strings.ToLower(c.Text))
				b.WriteString("\n\x00\n") // no answer spans two chunks
			}
			text = b.String()
			texts[it.Session] = text
		}
		total[it.Kind]++
		hit := false
		for _, a := range it.Answers {
			if strings.Contains(text, strings.ToLower(a)) {
				hit = true
				break
			}
		}
		if hit {
			found++
			hits[it.Kind]++
		} else {
			t.Logf("miss %s (%s): %q", it.ID, it.Kind, it.Answers)
		}
	}
	for k, n := range total {
		t.Logf("%-8s %d/%d", k, hits[k], n)
	}
	got := float64(found) / float64(len(items))
	t.Logf("coverage %d/%d = %.1f%%", found, len(items), 100*got)
	if got < coverageFloor {
		t.Errorf("coverage %.3f below floor %.2f", got, coverageFloor)
	}
}
