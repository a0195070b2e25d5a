package main

import (
	"bytes"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdRawProbe saves probes of a session's raw blocks as stored (they are
// compressed: the transcript's words need not appear in them), 48 bytes
// from the middle of each, hex, one per line, for noprobe to look for
// later; it fails when the session has no raw block:
//
//	rawprobe DB SESSION FILE
func cmdRawProbe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: rawprobe DB SESSION FILE")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?mode=ro&_pragma=busy_timeout(5000)")
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query(`SELECT data FROM raw_blocks WHERE session_id = ?`, args[1])
	ts.Check(err)
	defer rows.Close()
	var probes []string
	for rows.Next() {
		var data []byte
		ts.Check(rows.Scan(&data))
		if len(data) < 48 {
			ts.Fatalf("a raw block of %d bytes: too short to probe", len(data))
		}
		mid := len(data)/2 - 24
		probes = append(probes, hex.EncodeToString(data[mid:mid+48]))
	}
	ts.Check(rows.Err())
	if len(probes) == 0 {
		ts.Fatalf("session %s has no raw block in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(strings.Join(probes, "\n")+"\n"), 0o600))
}

// cmdNoProbe fails when a store file, or its -wal and -shm files, holds
// any of the probes rawprobe saved (with !, when they hold none):
//
//	noprobe DB FILE
func cmdNoProbe(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: noprobe DB FILE")
	}
	var probes [][]byte
	for _, h := range strings.Fields(ts.ReadFile(args[1])) {
		p, err := hex.DecodeString(h)
		ts.Check(err)
		probes = append(probes, p)
	}
	found := ""
	for _, p := range []string{ts.MkAbs(args[0]), ts.MkAbs(args[0]) + "-wal", ts.MkAbs(args[0]) + "-shm"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ts.Check(err)
		for i, probe := range probes {
			if found == "" && bytes.Contains(data, probe) {
				found = fmt.Sprintf("raw block %d is in %s", i+1, p)
			}
		}
	}
	switch {
	case !neg && found != "":
		ts.Fatalf("%s", found)
	case neg && found == "":
		ts.Fatalf("no raw block of %s is in the files of %s", args[1], args[0])
	}
}
