package chunk

import (
	"slices"
	"strings"
	"testing"
)

func TestSpecConstraints(t *testing.T) {
	tests := []struct {
		name     string
		out      string
		numbered bool
		want     []string
	}{
		{"markdown headings, a loose list", "# Rate limiter\n\n## Non-goals\n\n- No Redis.\n\n- No per-user quotas.\n\n## Plan\n- step one\n",
			false, []string{"No Redis.", "No per-user quotas."}},
		{"plain headings with colons, two sections", "TASK-12 · Add retries\n\nEdge cases:\n- Empty body returns 400.\n- Timeouts retry twice.\n\nArchitecture constraints:\n- Keep the client stateless.\n\nDefinition of Done:\n- tests pass\n",
			false, []string{"Empty body returns 400.", "Timeouts retry twice.", "Keep the client stateless."}},
		{"bold heading, numbered items, wrapped item", "**Hard constraints**\n1. Never log tokens,\n   not even masked.\n2) Go 1.22 only.\nSomething else\n- not a constraint\n",
			false, []string{"Never log tokens, not even masked.", "Go 1.22 only."}},
		{"a Read's numbered lines", "     1→# Spec\n     2→## Out of scope\n     3→- Windows ARM builds\n     4→\n     5→Text.\n",
			true, []string{"Windows ARM builds"}},
		{"a heading with a paragraph, no list", "## Constraints\nThe service must stay small.\n- a later list\n", false, nil},
		{"the word inside a sentence is no heading", "We discussed constraints: none\n- fast\n", false, nil},
		{"the same bullet twice", "No-gos:\n- No schema migration.\n\nNo-gos:\n- No schema migration.\n", false, []string{"No schema migration."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, sec := range specConstraints(tt.out, tt.numbered) {
				got = append(got, sec.bullets...)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("specConstraints = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSpecConstraintsBounded(t *testing.T) {
	var b strings.Builder
	for range 10 {
		b.WriteString("Constraints:\n")
		for j := range 20 {
			b.WriteString("- rule " + strings.Repeat("x", j*40) + "\n")
		}
	}
	secs := specConstraints(b.String(), false)
	if len(secs) > specSections {
		t.Errorf("%d sections, want at most %d", len(secs), specSections)
	}
	for _, sec := range secs {
		if len(sec.bullets) > specBullets {
			t.Errorf("%d bullets, want at most %d", len(sec.bullets), specBullets)
		}
		for _, s := range sec.bullets {
			if len(s) > specBulletCap {
				t.Errorf("a bullet of %d bytes, want at most %d", len(s), specBulletCap)
			}
		}
	}
}

func BenchmarkSpecConstraints(b *testing.B) {
	var out strings.Builder
	for i := range 20000 {
		out.WriteString("  compiling module_" + strings.Repeat("x", i%40) + " ok\n")
	}
	text := out.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		specConstraints(text, false)
	}
}
