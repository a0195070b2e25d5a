package sqlite

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/carryover-dev/carryover/internal/tokenize"
)

// TestCJKGlob checks that cjkGlob, the filter of the terms backfill,
// matches every code point that is, or that NFKC turns into, a character
// tokenize.CJKRuns counts: a chunk it skips would keep its old terms.
func TestCJKGlob(t *testing.T) {
	var want []string
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		if strings.ContainsFunc(norm.NFKC.String(s), tokenize.IsCJK) {
			want = append(want, s)
		}
	}
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.db.Query(`SELECT value FROM json_each(?) WHERE NOT value GLOB ? LIMIT 100`, string(list), cjkGlob)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		t.Errorf("cjkGlob misses U+%04X %q", []rune(s)[0], s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 90000 {
		t.Errorf("%d code points checked: too few", len(want))
	}
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM json_each(?) WHERE value GLOB ?`, `["a","é","→","😀"]`, cjkGlob).Scan(&n); err != nil || n != 0 {
		t.Errorf("cjkGlob matches %d of a, é, →, 😀 (%v); want none", n, err)
	}
}
