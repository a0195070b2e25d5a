package replicate

import "testing"

func TestReportSummary(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want string
	}{
		{Report{Sessions: 2, Chunks: 14, Items: 9, Compactions: 1, Notes: 1, Injections: 3, HookRuns: 5},
			"2 sessions: 14 new chunks, 9 items, 1 compaction, 1 note, 3 injections, 5 hook runs"},
		{Report{Sessions: 1, Forgotten: 1}, "1 session: 0 new chunks, 0 items, 0 compactions, 0 notes, 0 injections, 0 hook runs (1 session forgotten there skipped)"},
		{Report{Forgotten: 2, Unmapped: 4}, "0 sessions: 0 new chunks, 0 items, 0 compactions, 0 notes, 0 injections, 0 hook runs" +
			" (2 sessions forgotten there skipped) (4 audit references without a counterpart left out)"},
	} {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
