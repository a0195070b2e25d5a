package chunk_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"

	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

// buildBatches builds entries in batches cut before the given indexes,
// carrying the cursor through a JSON round trip as the store does.
func buildBatches(t *testing.T, es []transcript.Entry, cuts []int, opt chunk.Options) chunk.Result {
	t.Helper()
	var all chunk.Result
	cur := chunk.NewCursor()
	prev := 0
	for _, cut := range append(cuts, len(es)) {
		r := chunk.Build("s", projectOf(es), es[prev:cut], cur, opt)
		all.Chunks = append(all.Chunks, r.Chunks...)
		all.Items = append(all.Items, r.Items...)
		all.Compactions = append(all.Compactions, r.Compactions...)
		if all.Title == "" {
			all.Title = r.Title
		}
		raw, err := json.Marshal(r.Cursor)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) > 16<<10 {
			t.Fatalf("cursor is %d bytes", len(raw))
		}
		cur = chunk.Cursor{}
		if err := json.Unmarshal(raw, &cur); err != nil {
			t.Fatal(err)
		}
		prev = cut
	}
	all.Cursor = cur
	return all
}

// transcripts returns the fixture and, when the shared data is there, the
// spotter sessions.
func transcripts(t *testing.T) map[string][]transcript.Entry {
	out := map[string][]transcript.Entry{"sample": readEntries(t, filepath.Join("testdata", "sample.jsonl"))}
	shared, ok := findShared(t)
	if !ok || testing.Short() {
		t.Log("shared data not found (or -short): testing the sample transcript only")
		return out
	}
	ms, _ := filepath.Glob(filepath.Join(shared, "data", "transcripts", "spotter", "*.jsonl"))
	for _, m := range ms {
		out[filepath.Base(m)[:8]] = readEntries(t, m)
	}
	return out
}

func hashes(r chunk.Result) []string {
	var hs []string
	for _, c := range r.Chunks {
		hs = append(hs, c.Hash)
	}
	return hs
}

// TestIncrementalAtPrompts: batches cut at user prompts give exactly the
// chunks, items and compactions of one Build over everything.
func TestIncrementalAtPrompts(t *testing.T) {
	for name, es := range transcripts(t) {
		t.Run(name, func(t *testing.T) {
			whole := chunk.Build("s", projectOf(es), es, chunk.NewCursor(), chunk.Options{})
			var cuts []int
			for i := range es {
				if es[i].IsUserPrompt() && i > 0 {
					cuts = append(cuts, i)
				}
			}
			// Also cut right before the compaction boundary, where the
			// window changes.
			for i := range es {
				if es[i].IsCompactBoundary() {
					cuts = append(cuts, i)
				}
			}
			slices.Sort(cuts)
			cuts = slices.Compact(cuts)
			if len(cuts) == 0 {
				t.Fatal("no prompt to cut at")
			}
			parts := buildBatches(t, es, cuts, chunk.Options{})
			if got, want := hashes(parts), hashes(whole); !slices.Equal(got, want) {
				t.Fatalf("batched chunks differ: %d vs %d chunks", len(got), len(want))
			}
			for i := range whole.Chunks {
				w, g := whole.Chunks[i], parts.Chunks[i]
				if w.Seq != g.Seq || w.Turn != g.Turn || w.Window != g.Window || w.FirstLine != g.FirstLine || w.LastLine != g.LastLine || w.Summary != g.Summary {
					t.Fatalf("chunk %d differs:\n%+v\n%+v", i, w, g)
				}
			}
			if len(parts.Items) != len(whole.Items) {
				t.Fatalf("items: %d batched vs %d whole", len(parts.Items), len(whole.Items))
			}
			for i := range whole.Items {
				if w, g := whole.Items[i], parts.Items[i]; w != g {
					t.Fatalf("item %d differs:\n%+v\n%+v", i, w, g)
				}
			}
			if !slices.Equal(parts.Compactions, whole.Compactions) || parts.Title != whole.Title {
				t.Fatalf("compactions or title differ")
			}
		})
	}
}

// TestIncrementalAnywhere: batches cut at arbitrary entries pack chunks
// differently but lose no rendered line, no item key and no compaction.
func TestIncrementalAnywhere(t *testing.T) {
	// Chunks are not split here, so every rendered line stays whole.
	opt := chunk.Options{TargetChars: 1000, MaxChars: 1 << 30}
	for name, es := range transcripts(t) {
		t.Run(name, func(t *testing.T) {
			whole := chunk.Build("s", projectOf(es), es, chunk.NewCursor(), opt)
			for _, step := range []int{1, 3, 17, 101} {
				var cuts []int
				for i := step; i < len(es); i += step {
					cuts = append(cuts, i)
				}
				parts := buildBatches(t, es, cuts, opt)
				var b strings.Builder
				for _, c := range parts.Chunks {
					b.WriteString(c.Text + "\n")
				}
				all := b.String()
				for _, c := range whole.Chunks {
					for line := range strings.Lines(c.Text) {
						if !strings.Contains(all, line) {
							t.Fatalf("step %d: line lost: %q", step, line)
						}
					}
				}
				if got, want := keys(parts), keys(whole); !slices.Equal(got, want) {
					t.Fatalf("step %d: item keys differ:\n%v\n%v", step, got, want)
				}
				if got, want := resolved(parts), resolved(whole); !slices.Equal(got, want) {
					t.Fatalf("step %d: resolved errors differ:\n%v\n%v", step, got, want)
				}
				if len(whole.Compactions) > 0 {
					last := map[int]string{}
					for _, c := range parts.Compactions {
						last[c.Window] = c.Summary // the store upserts by window
					}
					for _, c := range whole.Compactions {
						if last[c.Window] != c.Summary {
							t.Fatalf("step %d: compaction %d summary lost", step, c.Window)
						}
					}
				}
				if parts.Cursor.Turn != whole.Cursor.Turn || parts.Cursor.Window != whole.Cursor.Window {
					t.Fatalf("step %d: cursor %+v vs %+v", step, parts.Cursor, whole.Cursor)
				}
			}
		})
	}
}

// keys lists the items' keys; an inputs item is keyed by its chunk, whose
// boundaries depend on the batches, so its identifiers stand for it.
func keys(r chunk.Result) []string {
	var ks []string
	for _, it := range r.Items {
		if it.Kind == carryover.KindInputs {
			for _, id := range strings.Fields(it.Text) {
				ks = append(ks, "inputs|"+id)
			}
			continue
		}
		ks = append(ks, string(it.Kind)+"|"+it.Key)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

func resolved(r chunk.Result) []string {
	var ks []string
	for _, it := range r.Items {
		if it.Resolved {
			ks = append(ks, it.Key)
		}
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}
