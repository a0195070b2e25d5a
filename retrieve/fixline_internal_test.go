package retrieve

import "testing"

// TestCompactFix: a fix made of edits names each file and the identifiers
// its new text brings in; parts that are not edits, and edits that bring
// in no identifier, stay as they were.
func TestCompactFix(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{
			name: "one edit",
			text: `/proj/cfg/app.conf: "listen_port = 80" → "listen_port = 80 max_open_conns = 12"`,
			want: "cfg/app.conf: +max_open_conns",
		},
		{
			name: "two edits of one file are one entry",
			text: `/proj/a/b.go: "x" → "return parseHeader(r)"; /proj/a/b.go: "y" → "cfg.MaxRetries = 3"`,
			want: "a/b.go: +parseHeader +cfg.MaxRetries",
		},
		{
			name: "identifiers the old text had are not new",
			text: `/proj/x.py: "load_user_row(id)" → "load_user_row(id, cache_ttl_seconds)"`,
			want: "x.py: +cache_ttl_seconds",
		},
		{
			name: "no new identifier keeps the edit",
			text: `/proj/x.py: "timeout = 5" → "timeout = 50"`,
			want: `/proj/x.py: "timeout = 5" → "timeout = 50"`,
		},
		{
			name: "a part that is not an edit is kept",
			text: `Write /proj/new_file.go; /proj/y.go: "a" → "b := newClientPool()"`,
			want: "y.go: +newClientPool; Write /proj/new_file.go",
		},
		{
			name: "a command is kept whole",
			text: "git add -A && git commit -m 'fix: retry'",
			want: "git add -A && git commit -m 'fix: retry'",
		},
		{
			name: "a cut text still names what it shows",
			text: `/proj/z.rs: "fn a()" → "fn a() { let conn_pool_size = 8; retry_with_backoff(…`,
			want: "z.rs: +conn_pool_size +retry_with_backoff",
		},
	}
	for _, tc := range tests {
		if got := compactFix(tc.text, "/proj"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
