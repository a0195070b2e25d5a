package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

// TestSnippetsShareByRank checks that better hits get longer snippets and
// that all texts together stay within the budget.
func TestSnippetsShareByRank(t *testing.T) {
	var hits []carryover.Hit
	for i := range 4 {
		var b strings.Builder
		fmt.Fprintf(&b, "chunk %d mentions widgetFactory setting\n", i)
		for j := range 60 {
			fmt.Fprintf(&b, "line %d of chunk %d says more about it\n", j, i)
		}
		hits = append(hits, carryover.Hit{Score: float64(10 - i), Chunk: carryover.Chunk{
			ID: int64(i + 1), SessionID: "s1", Turn: i, FirstLine: 10 * i, LastLine: 10*i + 9,
			Text: b.String(), Hash: fmt.Sprint(i),
		}})
	}
	const budget = 2000
	rs := snippets(hits, queryTerms("widgetFactory setting"), budget)
	if len(rs) != len(hits) {
		t.Fatalf("got %d results, want %d", len(rs), len(hits))
	}
	total := 0
	for i, r := range rs {
		total += len(r.Text)
		if i > 0 && len(r.Text) >= len(rs[i-1].Text) {
			t.Errorf("result %d has %d bytes, not fewer than result %d (%d)", i, len(r.Text), i-1, len(rs[i-1].Text))
		}
	}
	if total > budget {
		t.Errorf("results total %d bytes, budget %d", total, budget)
	}
	if len(rs[0].Text) < budget/3 {
		t.Errorf("best hit shows %d bytes, want at least a third of the budget", len(rs[0].Text))
	}
}

func TestInformativeLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"end", false},
		{`"""`, false},
		{"}", false},
		{"… [3948 chars omitted] …", false},
		{"port: 4002,", true},
		{"config/test.exs", true},
		{"Now update the shared component", true},
	} {
		if got := informativeLine(c.line); got != c.want {
			t.Errorf("informativeLine(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestRecentEntriesDropRepeats checks that a line shown in a newer
// excerpt is not repeated in an older one, and that empty lines go.
func TestRecentEntriesDropRepeats(t *testing.T) {
	chunks := []carryover.Chunk{
		{ID: 2, Turn: 1, FirstLine: 20, LastLine: 30, Text: "Write lib/app.ex (cont.)\n  end\n  timeout_ms: 1500\n}"},
		{ID: 1, Turn: 1, FirstLine: 10, LastLine: 19, Text: "Write lib/app.ex (cont.)\nmax_retries: 3\nend"},
	}
	es := recentEntries(chunks, newNovelty("", ""))
	if len(es) != 2 {
		t.Fatalf("got %d entries, want 2", len(es))
	}
	if es[0].text != "Write lib/app.ex (cont.)\ntimeout_ms: 1500" {
		t.Errorf("newest excerpt = %q", es[0].text)
	}
	if es[1].text != "max_retries: 3" {
		t.Errorf("older excerpt = %q, want only its new line", es[1].text)
	}
}
