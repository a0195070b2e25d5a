package retrieve

import "testing"

func TestUnseenValues(t *testing.T) {
	n := newNovelty("We set `port: 4002` in the test config and added parseHeader.", "/p")
	tests := []struct{ text, want string }{
		{"port: 4002 · server: false", "server: false"},
		{"port: 4002 · parseHeader", ""},
		{"commit 1a2b3c4 (main): fix", "commit 1a2b3c4 (main): fix"},
	}
	for _, tt := range tests {
		if got := n.unseenValues(tt.text); got != tt.want {
			t.Errorf("unseenValues(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if got := newNovelty("", "").unseenValues("a · b"); got != "a · b" {
		t.Errorf("without a summary every value is new, got %q", got)
	}
}
