package main

import (
	"slices"
	"strings"

	"github.com/carryover-dev/carryover/redact"
)

// redact masks the secrets in s with the configured redactor.
func (a *app) redact(s string) (string, map[string]int) {
	if a.redactor == nil {
		a.redactor = redact.New(redact.Options{})
	}
	return a.redactor.Redact(s)
}

func countAll(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// kindList names the kinds of counts, sorted.
func kindList(counts map[string]int) string {
	ks := make([]string, 0, len(counts))
	for k := range counts {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}
