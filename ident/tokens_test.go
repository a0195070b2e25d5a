package ident

import (
	"regexp"
	"testing"
)

// token is the expression tokens implements.
var token = regexp.MustCompile(`[A-Za-z0-9_~][A-Za-z0-9_./:@#=+-]{4,}[A-Za-z0-9_]`)

// FuzzTokens: tokens finds what the token expression finds.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "abcdef", "~/src/x.go", "a/////////b", "a.....", "a....b", "x=1+2-3:4@5#6", "~~~~~~~",
		"héllo_wörld_1234", "ab\xffcd_efgh", "go test ./... -run TestX -count=1", "ab-cd-ef-", "/home/u/p/file_1.go:12:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := token.FindAllStringIndex(s, -1)
		got := tokens(s)
		if len(got) != len(want) {
			t.Fatalf("tokens(%q) = %v, want %v", s, got, want)
		}
		for i := range want {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Fatalf("tokens(%q) = %v, want %v", s, got, want)
			}
		}
	})
}
