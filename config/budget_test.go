package config

import (
	"strings"
	"testing"
)

// TestBudgetOverHookCap: a budget above what Claude Code shows of a hook's
// output still loads, with a warning that says what happens to the rest;
// one under it draws none.
func TestBudgetOverHookCap(t *testing.T) {
	s := newSetup(t, "budget = 12000\nrecall_budget = 9000\n", "budget_tokens = 3000\n")
	c := s.load(t)
	got := problems(c)
	if c.Budget != 12000 {
		t.Errorf("budget = %d, want the file's 12000", c.Budget)
	}
	for _, want := range []string{
		s.userFile() + ":1: budget: 12000 chars is over the 10000 Claude Code shows of a hook's output",
		s.projectFile() + ":1: budget_tokens: 12000 chars is over the 10000",
		"carryover's hooks cut what they inject to 9000",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "recall_budget") {
		t.Errorf("a recall budget under the cap drew a warning:\n%s", got)
	}
}
