package tokenize

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestSplitIdent(t *testing.T) {
	for w, want := range map[string][]string{
		"parseHTTPResponse_v2": {"parse", "HTTP", "Response", "v2"},
		"secret_key_base":      {"secret", "key", "base"},
		"md5Hash":              {"md5", "Hash"},
		"plain":                {"plain"},
		"URL":                  {"URL"},
	} {
		if got := SplitIdent(w); !slices.Equal(got, want) {
			t.Errorf("SplitIdent(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestCompounds(t *testing.T) {
	var got []string
	Compounds("see src/app/main.go. then foo-bar, v1.2 and -x", func(c string, ws []string) {
		got = append(got, c+"="+strings.Join(ws, "+"))
	})
	want := []string{"see=see", "src/app/main.go=src+app+main+go", "then=then", "foo-bar=foo+bar", "v1.2=v1+2", "and=and", "x=x"}
	if !slices.Equal(got, want) {
		t.Errorf("Compounds = %q, want %q", got, want)
	}
}

func TestQueryTerms(t *testing.T) {
	got := QueryTerms("Please fix parseHTTPResponse in src/app/main.go, the ﬁrst time", 24)
	want := []string{"fix", "parsehttpresponse", "parse", "http", "response", "src/app/main.go", "src", "app", "main", "go", "first", "time"}
	if !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %q, want %q", got, want)
	}
	// Too many terms: the longest and most identifier-like stay.
	got = QueryTerms("a bb ccc dddd eeeee v1.2.3", 3)
	if want := []string{"v1.2.3", "v1", "eeeee"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms capped = %q, want %q", got, want)
	}
	if got := QueryTerms("the and of ! a", 24); len(got) != 0 {
		t.Errorf("QueryTerms of stopwords = %q, want none", got)
	}
}

func TestStopwordsAndFiller(t *testing.T) {
	for _, w := range []string{"the", "which", "us"} {
		if !IsStopword(w) || IsFiller(w) {
			t.Errorf("%q: stopword %v, filler %v; want a stopword", w, IsStopword(w), IsFiller(w))
		}
	}
	for _, w := range []string{"continue", "first", "thanks", "show"} {
		if IsStopword(w) || !IsFiller(w) {
			t.Errorf("%q: stopword %v, filler %v; want filler", w, IsStopword(w), IsFiller(w))
		}
	}
	if IsStopword("deploy") || IsFiller("deploy") {
		t.Error("deploy is neither")
	}
}

func TestIndexTerms(t *testing.T) {
	// A field that NFKC changes also gives the NFKC form of every word.
	got := IndexTerms("renamed parseHTTPResponse", "ﬁle foo_bar parseHTTPResponse")
	if want := "parse http response file foo_bar foo bar parsehttpresponse"; got != want {
		t.Errorf("IndexTerms = %q, want %q", got, want)
	}
}

func TestIsIdentLike(t *testing.T) {
	for w, want := range map[string]bool{
		"config/test.exs": true, "SpotterWeb.Endpoint": true, "secret_key_base": true, "--dry-run": true,
		"v2": false, "abc123": true, "deploy": false, "a.b": true, ".ab": false, "Deploy": false,
	} {
		if got := IsIdentLike(w); got != want {
			t.Errorf("IsIdentLike(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestCJKRuns(t *testing.T) {
	for w, want := range map[string][]string{
		"首次全量":    {"首次 次全 全量"},
		"全量":      nil, // the word is its own bigram
		"DB全量同步":  {"全量 量同 同步"},
		"全量v2自动化": {"全量", "自动 动化"},
		"データベース":  {"デー ータ タベ ベー ース"},
		"데이터베이스를": {"데이 이터 터베 베이 이스 스를"},
		"deploy":  nil,
		"量":       nil,
	} {
		var got []string
		CJKRuns(w, func(bigrams []string) { got = append(got, strings.Join(bigrams, " ")) })
		if !slices.Equal(got, want) {
			t.Errorf("CJKRuns(%q) = %q, want %q", w, got, want)
		}
	}
	if got, want := QueryTerms("首次全量 = 自动化优先", 24), []string{"首次全量", "首次 次全 全量", "自动化优先", "自动 动化 化优 优先"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %q, want %q", got, want)
	}
	// A run of more than 8 runes (a sentence) is also asked for by each
	// bigram, after the other terms; a run of 8 is not.
	got := QueryTerms("为什么首次全量同步失败 v2", 24)
	if want := []string{"为什么首次全量同步失败", "为什 什么 么首 首次 次全 全量 量同 同步 步失 失败", "v2", "为什", "什么", "么首", "首次", "次全", "全量", "量同", "同步", "步失", "失败"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms of a long run = %q, want %q", got, want)
	}
	if got := QueryTerms("首次全量同步失败", 24); len(got) != 2 {
		t.Errorf("QueryTerms of an 8-rune run = %q, want the run and its phrase", got)
	}
	if got := QueryTerms("为什么首次全量同步失败 "+strings.Repeat("configuration_value_x ", 40), 6); slices.Contains(got, "失败") {
		t.Errorf("the cap kept a lone bigram before longer terms: %q", got)
	}
	// The same run twice is indexed once; runs sharing bigrams each keep
	// theirs in order.
	if got, want := IndexTerms("首次全量 首次全量", "全量同步"), "首次 次全 全量 全量 量同 同步"; got != want {
		t.Errorf("IndexTerms = %q, want %q", got, want)
	}
}

// TestHasCJK checks that HasCJK finds every code point that is, or that
// NFKC turns into, a rune CJKRuns counts: the terms backfill skips a text
// without one.
func TestHasCJK(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := "a " + string(r) + " b"
		want := strings.ContainsFunc(norm.NFKC.String(s), IsCJK)
		if want {
			n++
		}
		if got := HasCJK(s); got != want {
			t.Errorf("HasCJK(%q) = %v, want %v", s, got, want)
		}
	}
	if n < 90000 {
		t.Errorf("%d code points are or become CJK: too few", n)
	}
	if HasCJK("plain → text … ✓ ─ 😀 é") {
		t.Error("HasCJK of text without CJK is true")
	}
}
