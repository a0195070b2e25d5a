package main

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"strconv"

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
