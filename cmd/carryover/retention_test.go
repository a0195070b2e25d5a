package main

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdNoBytes fails when a file, or its SQLite -wal and -shm files, contain
// a string anywhere in their raw bytes (with !, when none does):
//
//	nobytes FILE STRING
func cmdNoBytes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: nobytes FILE STRING")
	}
	found := ""
	for _, p := range []string{ts.MkAbs(args[0]), ts.MkAbs(args[0]) + "-wal", ts.MkAbs(args[0]) + "-shm"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ts.Check(err)
		if i := bytes.Index(data, []byte(args[1])); i >= 0 {
			found = p + " at byte " + strconv.Itoa(i)
			break
		}
	}
	switch {
	case !neg && found != "":
		ts.Fatalf("%q is in %s", args[1], found)
	case neg && found == "":
		ts.Fatalf("%q is in none of the files of %s", args[1], args[0])
	}
}

// cmdFTSCount queries the store's full-text index directly, bypassing
// carryover's query handling, and compares the number of chunks matching
// a term:
//
//	ftscount DB TERM N
func cmdFTSCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: ftscount DB TERM N")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?mode=ro&_pragma=busy_timeout(5000)")
	ts.Check(err)
	defer db.Close()
	var n int
	for _, q := range []string{
		`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`,
		`SELECT count(*) FROM items_fts WHERE items_fts MATCH ?`,
	} {
		var k int
		ts.Check(db.QueryRow(q, `"`+args[1]+`"`).Scan(&k))
		n += k
	}
	if want, _ := strconv.Atoi(args[2]); n != want {
		ts.Fatalf("full-text index has %d rows matching %q, want %d", n, args[1], want)
	}
}

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"90d": 90 * day, "2w": 14 * day, "36h": 36 * time.Hour, "1w2d": 9 * day, "1.5d": 36 * time.Hour,
		"45m": 45 * time.Minute, " 7D ": 7 * day, "30s": 30 * time.Second,
	} {
		got, err := parseAge(in)
		if err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "90", "d", "3y", "-2d", "0d", "2dd", "1e3d", "99999999w", "1.2.3d"} {
		if got, err := parseAge(in); err == nil {
			t.Errorf("parseAge(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"2GB": 2e9, "500MB": 500e6, "1.5GiB": 3 << 29, "10KiB": 10240, "100": 100, "7b": 7, "2 mb": 2e6,
		"1G": 1 << 30, "3k": 3072, "1TB": 1e12,
	} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GB", "2XB", "-1GB", "1e3", "2 G B", "99999999999TB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 282624: "282.6 kB", 2e9: "2.0 GB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
