package retrieve_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

// TestFindSession resolves references as people copy them from lists:
// prefixes of a session that ran subagents name the session, "PARENT/AGENT"
// names a subagent, and a prefix of several sessions is ambiguous.
func TestFindSession(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	const (
		fa  = "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
		fa2 = "fa812bfe-c000-4000-8000-000000000000" // shares 9 characters with fa
		ae  = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	)
	for i, s := range []carryover.Session{
		{ID: fa}, {ID: fa + "/agent-a2898e3", Parent: fa}, {ID: fa + "/agent-acompact-e1f845", Parent: fa},
		{ID: fa + "/agent-b77", Parent: fa}, {ID: "agent-5e6f7a8b", Parent: fa},
		{ID: fa2}, {ID: ae}, {ID: ae + "/agent-a881341", Parent: ae}, {ID: "agent-5e6f0000", Parent: ae},
	} {
		s.Project, s.Started = "/p", time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)
		s.Updated = s.Started
		apply(t, st, s, nil, nil)
	}
	for ref, want := range map[string]string{
		fa:                            fa,
		"fa812bfe-b":                  fa,
		"fa812bfe-b295":               fa,
		"fa812bfe-c":                  fa2,
		"ae4a77f8":                    ae,
		"ae4a":                        ae, // shorter than a listed id, still one family
		"  ae4a77f8 ":                 ae,
		"ae4a77f8/agent-a881341":      ae + "/agent-a881341",
		"ae4a/agent-a8":               ae + "/agent-a881341",
		"fa812bfe-b/agent-a2":         fa + "/agent-a2898e3",
		"fa812bfe-b/agent-5e6f7a8b":   "agent-5e6f7a8b", // a flat-layout subagent under its parent
		fa + "/agent-acompact-e1f845": fa + "/agent-acompact-e1f845",
		"agent-5e6f7":                 "agent-5e6f7a8b", // a subagent's own unique prefix
	} {
		s, err := retrieve.FindSession(ctx, st, ref)
		if err != nil || s.ID != want {
			t.Errorf("FindSession(%q) = %q, %v; want %q", ref, s.ID, err, want)
		}
	}
	for ref, n := range map[string]int{
		"fa812bfe":           2, // two sessions share it
		"fa812bfe-b/agent-a": 2, // agent-a2898e3, agent-acompact-e1f845
		"agent-5e6f":         2, // subagents of two parents
		"a":                  2, // ae… and the agent- sessions' families
	} {
		_, err := retrieve.FindSession(ctx, st, ref)
		var amb *carryover.AmbiguousError
		if !errors.As(err, &amb) || len(amb.Matches) != n {
			t.Errorf("FindSession(%q) = %v, want ambiguous between %d", ref, err, n)
		}
	}
	for _, ref := range []string{"", "ffffffff", "ae4a77f8/agent-zz", "ffffffff/agent-a2898e3", "fa812bfe-b295-4cca-9c2f-fdf01028cb46-x"} {
		if _, err := retrieve.FindSession(ctx, st, ref); !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("FindSession(%q) = %v, want not found", ref, err)
		}
	}

	subs, err := retrieve.Subagents(ctx, st, fa)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range subs {
		got = append(got, s.ID)
	}
	if want := []string{fa + "/agent-a2898e3", fa + "/agent-acompact-e1f845", fa + "/agent-b77", "agent-5e6f7a8b"}; !slices.Equal(got, want) {
		t.Errorf("Subagents = %v, want %v", got, want)
	}
}

func TestIDShortener(t *testing.T) {
	ids := []string{"fa812bfe-b295-4cca", "fa812bfe-c000-4000", "ae4a77f8-aedd-4bc1", "fa812bfe-b295-4cca/agent-a2898e3",
		"agent-5e6f7a8b", "agent-5e6f0000", "short", "abcdef0123"}
	sh := carryover.NewIDShortener(ids)
	for id, want := range map[string]string{
		"fa812bfe-b295-4cca":               "fa812bfe-b",
		"fa812bfe-c000-4000":               "fa812bfe-c",
		"ae4a77f8-aedd-4bc1":               "ae4a77f8",
		"fa812bfe-b295-4cca/agent-a2898e3": "fa812bfe-b/agent-a2898e3",
		"agent-5e6f7a8b":                   "agent-5e6f7",
		"short":                            "short",
		"abcdef0123":                       "abcdef01",
		"ae4a77f8-ffff":                    "ae4a77f8-f", // not listed: unique against the listed ones
	} {
		if got := sh.Short(id); got != want {
			t.Errorf("Short(%q) = %q, want %q", id, got, want)
		}
	}
	if got := carryover.ShortID("fa812bfe-b295-4cca/agent-a2898e3"); got != "fa812bfe/agent-a2898e3" {
		t.Errorf("ShortID of a subagent = %q", got)
	}
}
