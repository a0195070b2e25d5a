package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Item is one fact of the compaction-survival benchmark: a question whose
// answer a real compaction's summary dropped.
type Item struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
	Kind     string   `json:"kind"`
}

// ReadItems reads benchmark items, one JSON object a line.
func ReadItems(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench items: %w", err)
	}
	defer f.Close()
	var items []Item
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var it Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("bench items %s: %w", path, err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench items %s: %w", path, err)
	}
	return items, nil
}

// bySession groups items by session, sessions in order of first mention.
func bySession(items []Item) (order []string, groups map[string][]Item) {
	groups = map[string][]Item{}
	for _, it := range items {
		if _, ok := groups[it.Session]; !ok {
			order = append(order, it.Session)
		}
		groups[it.Session] = append(groups[it.Session], it)
	}
	return order, groups
}

// Hit reports whether text holds any of the answers, case-insensitively:
// the benchmark's definition of a hit.
func Hit(text string, answers []string) bool {
	lt := strings.ToLower(text)
	for _, ans := range answers {
		if ans != "" && strings.Contains(lt, strings.ToLower(ans)) {
			return true
		}
	}
	return false
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// cut returns the first n bytes of s: the benchmark truncates what it
// scores to the budget.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
