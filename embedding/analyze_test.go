package embedding

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"
	"golang.org/x/text/unicode/norm"
)

// referenceAnalyze is analyze as first written, on tokenize.Compounds and
// tokenize.SplitIdent: the faster one must give the same tokens.
func referenceAnalyze(text string) analysis {
	if !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text)
	}
	var a analysis
	keep := func(t string) (string, bool) {
		t = strings.ToLower(t)
		return t, utf8.RuneCountInString(t) >= 2 && !tokenize.IsStopword(t)
	}
	word := func(w string) {
		parts := tokenize.SplitIdent(w)
		if len(parts) > 1 {
			if t, ok := keep(w); ok {
				a.wholes = append(a.wholes, t)
			}
		}
		for _, p := range parts {
			if t, ok := keep(p); ok {
				a.tokens = append(a.tokens, t)
			}
		}
	}
	tokenize.Compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			a.wholes = append(a.wholes, strings.ToLower(c))
		}
		for _, w := range ws {
			word(w)
		}
	})
	return a
}

func checkAnalyze(t *testing.T, a *analysis, text string) {
	t.Helper()
	a.analyze(text)
	want := referenceAnalyze(text)
	if !slices.Equal(a.tokens, want.tokens) || !slices.Equal(a.wholes, want.wholes) {
		t.Fatalf("analyze(%.200q):\n tokens %q\n wholes %q\nwant\n tokens %q\n wholes %q", text, a.tokens, a.wholes, want.tokens, want.wholes)
	}
}

// TestAnalyzeAsReference compares the tokens of samples and of the lines
// of the shared transcripts, analysed one after the other with one reused
// analysis, as Embed does.
func TestAnalyzeAsReference(t *testing.T) {
	var a analysis
	for _, s := range append(samples, text1K, "", "a", "x_y", "Foo.Bar-baz::qux//", "ＡＢＣ ﬁle ①②", "É\u0301cole naïve",
		"don't re-run v1.2.3 parseHTTPResponse_v2 __init__ _x_ A_B") {
		checkAnalyze(t, &a, s)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "transcripts", "*", "*.jsonl"))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no shared transcripts beside the repository under CI")
		}
		t.Skip("no shared transcripts beside the repository")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stride := 4
		if testing.Short() || raceBuild {
			stride = 40
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i%stride == 0 {
				checkAnalyze(t, &a, string(line))
			}
		}
	}
}

func TestAnalyzeHelpers(t *testing.T) {
	for c := range byte(utf8.RuneSelf) {
		if asciiWord(c) != tokenize.IsWordRune(rune(c)) {
			t.Errorf("asciiWord(%q) = %v, tokenize.IsWordRune says otherwise", c, asciiWord(c))
		}
	}
	for _, w := range tokenize.Stopwords() {
		if len(w) > maxStopword {
			t.Errorf("stopword %q is longer than maxStopword %d", w, maxStopword)
		}
	}
	for _, s := range []string{"", "abc", "abcdefgh", "abcdefghé", "é", strings.Repeat("x", 17) + "\x80"} {
		want := true
		for i := range len(s) {
			want = want && s[i] < utf8.RuneSelf
		}
		if isASCII(s) != want {
			t.Errorf("isASCII(%q) = %v", s, !want)
		}
	}
}

func checkSplitIdent(t *testing.T, w string) {
	t.Helper()
	if !utf8.ValidString(w) || !tokenize.IsCompound(w) {
		return // analyze splits only such words
	}
	if got, want := splitIdent(w, nil), tokenize.SplitIdent(w); !slices.Equal(got, want) {
		t.Fatalf("splitIdent(%q) = %q, tokenize.SplitIdent gives %q", w, got, want)
	}
}

func TestSplitIdent(t *testing.T) {
	for _, w := range []string{"parseHTTPResponse_v2", "HTTPServer", "getX", "XMLHttpRequest", "a__b", "_x_", "__init__",
		"A_B", "snake_case_name", "ÉcoleNormale", "iOS", "ABc", "AbC", "x1Y2z3", "ǅungla", "ΣίσυφοςΑ", "aB_", "B"} {
		checkSplitIdent(t, w)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Add("x_y.z-W/Kelvin\u212a ſ ǅ ﬃ \xff\xfe a..b a.-b")
	f.Fuzz(func(t *testing.T, text string) {
		var a analysis
		checkAnalyze(t, &a, text)
		checkAnalyze(t, &a, text+" "+text) // reused memory
		checkSplitIdent(t, text)
	})
}
