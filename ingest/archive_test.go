package ingest_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
)

var update = flag.Bool("update", false, "rewrite testdata/archive.golden")

// archiveTables are the tables an ingest writes, each with the order its
// rows are dumped in. The full-text indexes are compared through fts5vocab
// tables: their segment layout depends on how the rows were written, not
// on what was archived.
var archiveTables = []struct{ name, order string }{
	{"projects", "id"},
	{"sessions", "id"},
	{"chunks", "id"},
	{"chunk_vecs", "id"},
	{"items", "id"},
	{"compactions", "session_id, win"},
	{"redactions", "project, kind"},
	{"meta", "key"},
	// What the full-text indexes hold, every term at every position,
	// whatever their segments (see digestTable).
	{"temp.chunks_terms", "term, doc, col, offset"},
	{"temp.items_terms", "term, doc, col, offset"},
}

// TestArchiveGolden archives every real transcript of the shared data
// folder, each into a fresh store, and compares a digest of every row of
// every table the ingest wrote (chunk text, metadata, hash, terms, items,
// compactions, redaction counts, ingest state and the stored vectors, byte
// for byte) with testdata/archive.golden. Speeding up decoding, chunking,
// embedding or the inserts must not change what is archived; a deliberate
// change rewrites the file with -update, and its diff shows which session
// and table moved.
func TestArchiveGolden(t *testing.T) {
	data := filepath.Join("..", "..", "shared", "data", "transcripts")
	if _, err := os.Stat(data); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the shared data folder is missing under CI: %v", err)
		}
		t.Skipf("no shared transcripts beside the repository: %v", err)
	}
	abs, err := filepath.Abs(data)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in the shared data folder")
	}
	slices.Sort(files)
	// Under the race detector (ten times slower) or -short, the sessions
	// of up to 256 KB only: eighteen of the thirty, of every kind.
	partial := raceBuild || testing.Short()
	if partial {
		files = slices.DeleteFunc(files, func(path string) bool {
			fi, err := os.Stat(path)
			return err != nil || fi.Size() > 256<<10
		})
	}

	ctx := context.Background()
	var got strings.Builder
	for _, path := range files {
		rel, _ := filepath.Rel(data, path)
		rel = filepath.ToSlash(rel)
		dir := t.TempDir()
		db := filepath.Join(dir, "a.db")
		st, err := sqlite.Open(ctx, db, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		absPath, _ := filepath.Abs(path)
		rep, err := (&ingest.Archiver{Store: st}).File(ctx, absPath, ingest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		rawN, rawSum := digestRaw(t, st, db, rep.SessionID)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		for _, tab := range archiveTables {
			n, sum := digestTable(t, db, tab.name, tab.order, abs)
			fmt.Fprintf(&got, "%s %s %d %s\n", rel, tab.name, n, sum)
		}
		fmt.Fprintf(&got, "%s raw_lines %d %s\n", rel, rawN, rawSum)
	}

	golden := filepath.Join("testdata", "archive.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	// A line is "<session> <table> <rows> <digest>".
	wantLines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(want), "\n"), "\n") {
		f := strings.Fields(l)
		wantLines[f[0]+" "+f[1]] = l
	}
	gotLines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
	if !partial && len(gotLines) != len(wantLines) {
		t.Errorf("%d digests, golden has %d", len(gotLines), len(wantLines))
	}
	for _, l := range gotLines {
		f := strings.Fields(l)
		if w := wantLines[f[0]+" "+f[1]]; l != w {
			t.Errorf("archive differs:\n got %s\nwant %s", l, w)
		}
	}
}

// digestTable returns the number of rows of table in the store at db and a
// SHA-256 of all of them, every value rendered exactly (floats by their
// bits, blobs in hex), with the machine's path to the data folder replaced.
func digestTable(t *testing.T, db, table, order, dataDir string) (int, string) {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1) // the temp tables live in one connection
	for _, vocab := range []string{"chunks", "items"} {
		if _, err := conn.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.` + vocab + `_terms USING fts5vocab(main, ` + vocab + `_fts, instance)`); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(`SELECT * FROM ` + table + ` ORDER BY ` + order)
	if err != nil {
		t.Fatalf("dump %s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	w := bufio.NewWriter(h)
	fmt.Fprintf(w, "%q\n", cols)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			writeValue(w, v, dataDir)
		}
		w.WriteByte('\n')
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return n, shortSum(h)
}

// digestRaw returns the number of the session's raw lines and a SHA-256
// of them as the store gives them back (number, offset, size and masked
// text) and of the blocks they are packed in (their line and byte ranges):
// how a block is compressed may change, what it holds may not.
func digestRaw(t *testing.T, st *sqlite.Store, db, sessionID string) (int, string) {
	t.Helper()
	ctx := context.Background()
	lines, err := st.RawLines(ctx, sessionID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	w := bufio.NewWriter(h)
	for _, l := range lines {
		fmt.Fprintf(w, "%d %d %d %q\n", l.Line, l.Offset, l.Size, l.Text)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT first_line, last_line, first_offset, end_offset, text_bytes
		FROM raw_blocks WHERE session_id = ? ORDER BY first_line`, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var first, last, firstOff, endOff, text int64
		if err := rows.Scan(&first, &last, &firstOff, &endOff, &text); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "block %d %d %d %d %d\n", first, last, firstOff, endOff, text)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return len(lines), shortSum(h)
}

func writeValue(w *bufio.Writer, v any, dataDir string) {
	switch v := v.(type) {
	case nil:
		w.WriteString("NULL")
	case int64:
		w.WriteString(strconv.FormatInt(v, 10))
	case float64:
		w.WriteString("f" + strconv.FormatUint(math.Float64bits(v), 16))
	case string:
		w.WriteString(strconv.Quote(strings.ReplaceAll(v, dataDir, "<data>")))
	case []byte:
		w.WriteString("x" + hex.EncodeToString([]byte(strings.ReplaceAll(string(v), dataDir, "<data>"))))
	default:
		fmt.Fprintf(w, "%T:%v", v, v)
	}
	w.WriteByte('\t')
}

func shortSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:16]) }
