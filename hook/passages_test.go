package hook_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestPreCompactLeavesPassages: PreCompact, which the user waits on,
// archives the chunks but leaves the full-text passages; PostCompact,
// which follows the compaction before the next request, indexes them.
func TestPreCompactLeavesPassages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	marked := func() (indexed, last int) {
		t.Helper()
		st, err := sqlite.Open(ctx, e.db, sqlite.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		_, last, err = st.RawRange(ctx, demoID)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := st.SearchPassages(ctx, carryover.Query{Text: "invoice", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits), last
	}
	var out bytes.Buffer
	if res := e.handler().Run(ctx, hook.PreCompact, bytes.NewReader(e.payload("PreCompact", map[string]any{"trigger": "auto"})), &out); res.Outcome != "ok" || out.Len() == 0 {
		t.Fatalf("PreCompact: %+v", res)
	}
	if n, last := marked(); n != 0 || last == 0 {
		t.Fatalf("after PreCompact: %d passages found, %d raw lines; want the lines archived and no passage yet", n, last)
	}
	if res := e.handler().Run(ctx, hook.PostCompact, bytes.NewReader(e.payload("PostCompact", map[string]any{"trigger": "auto"})), io.Discard); res.Err != nil || res.Outcome == "error" {
		t.Fatalf("PostCompact: %+v", res)
	}
	if n, _ := marked(); n == 0 {
		t.Error("after PostCompact: no passage found")
	}
}
