package chunk

import (
	"slices"
	"testing"
)

// TestSentences: lines and sentence ends split, full-width ends need no
// space, fenced code and list markers are left out.
func TestSentences(t *testing.T) {
	text := "- We decided the port is 48213. Now check it!\n```\nx := 1. y\n```\n我们决定端口是48213。现在检查一下？\nmix of 中文。and English? yes\n"
	want := []string{"We decided the port is 48213.", "Now check it!", "我们决定端口是48213。", "现在检查一下？",
		"mix of 中文。", "and English?", "yes"}
	if got := Sentences(text); !slices.Equal(got, want) {
		t.Errorf("Sentences:\n got %q\nwant %q", got, want)
	}
}
