package sqlite

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateSchema = flag.Bool("update-schema", false, "write schema.sql from the migrations' result")

// migratedStore creates a store at path by replaying every migration, as
// an old store is brought up to date, never by schema.sql.
func migratedStore(t *testing.T, path string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	if err := createFile(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path, Options{BusyTimeout: DefaultBusyTimeout}, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{db: db, path: path}
	if err := s.setWAL(ctx, DefaultBusyTimeout); err != nil {
		t.Fatal(err)
	}
	if err := s.migrateWith(ctx, ms, false); err != nil {
		t.Fatal(err)
	}
	return db
}

// dumpStore renders what a store is made of: its header fields, every
// schema object, and every row of every table (the full-text indexes'
// shadow tables and the meta rows included).
func dumpStore(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"user_version", "application_id", "journal_mode", "page_size", "auto_vacuum", "encoding", "foreign_keys"} {
		var v string
		if err := db.QueryRow("PRAGMA " + p).Scan(&v); err != nil {
			t.Fatalf("PRAGMA %s: %v", p, err)
		}
		fmt.Fprintf(&b, "%s = %s\n", p, v)
	}
	rows, err := db.Query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var typ, name, tbl, text string
		if err := rows.Scan(&typ, &name, &tbl, &text); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s on %s: %s\n", typ, name, tbl, text)
		if typ == "table" && !strings.HasPrefix(text, "CREATE VIRTUAL TABLE") {
			tables = append(tables, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for _, name := range tables {
		var lines []string
		rows, err := db.Query(fmt.Sprintf("SELECT * FROM %q", name))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("row of %s: %v", name, vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(lines)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// schemaDump renders a migrated store as schema.sql: its objects in the
// order they were made (the full-text indexes' shadow tables are made by
// their virtual tables) and its rows.
func schemaDump(t *testing.T, db *sql.DB) string {
	t.Helper()
	shadow := map[string]bool{}
	rows, err := db.Query("SELECT name, type FROM pragma_table_list WHERE schema = 'main'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		shadow[name] = typ == "shadow"
	}
	rows.Close()
	var b strings.Builder
	b.WriteString("-- The current schema, for a new store: what the migrations make of an\n" +
		"-- empty database, dumped by `go test ./sqlite -run TestFreshSchema\n" +
		"-- -update-schema` after a migration is added. Do not edit by hand.\n")
	rows, err = db.Query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			t.Fatal(err)
		}
		if shadow[name] || strings.HasPrefix(name, "sqlite_") {
			continue
		}
		b.WriteString(text + ";\n")
	}
	rows.Close()
	rows, err = db.Query("SELECT 'INSERT INTO meta (key, value) VALUES (' || quote(key) || ', ' || quote(value) || ');' FROM meta ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var stmt string
		if err := rows.Scan(&stmt); err != nil {
			t.Fatal(err)
		}
		b.WriteString(stmt + "\n")
	}
	rows.Close()
	return b.String()
}

// TestFreshSchema checks that a new store made by schema.sql is the store
// the migrations make of an empty database: the same objects, header
// fields and rows. schema.sql must follow every new migration.
func TestFreshSchema(t *testing.T) {
	dir := t.TempDir()
	migrated := migratedStore(t, filepath.Join(dir, "migrated.db"))
	if *updateSchema {
		if err := os.WriteFile("schema.sql", []byte(schemaDump(t, migrated)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(context.Background(), filepath.Join(dir, "fresh.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want, got := dumpStore(t, migrated), dumpStore(t, st.db)
	if got != want {
		t.Errorf("a new store differs from a migrated one: run go test ./sqlite -run TestFreshSchema -update-schema after adding a migration\nnew store:\n%s\nmigrated:\n%s", got, want)
	}
	// Not vacuous: the dump holds the schema and the migrations' rows.
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	version := fmt.Sprintf("user_version = %d\n", ms[len(ms)-1].version)
	for _, s := range []string{"table chunks on chunks: CREATE TABLE", "trigger chunks_ai", "row of meta: [vec_backfill_below 1]", version} {
		if !strings.Contains(want, s) {
			t.Errorf("the migrated store's dump lacks %q:\n%s", s, want)
		}
	}
}

// BenchmarkCreate makes a new store, by schema.sql as Open does and by
// replaying the migrations as before it.
func BenchmarkCreate(b *testing.B) {
	ctx := context.Background()
	ms, err := migrations()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		useSchema bool
	}{{"schema", true}, {"migrations", false}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "carryover.db")
				b.StartTimer()
				if err := createFile(path); err != nil {
					b.Fatal(err)
				}
				db, err := sql.Open("sqlite", dsn(path, Options{BusyTimeout: DefaultBusyTimeout}, ""))
				if err != nil {
					b.Fatal(err)
				}
				s := &Store{db: db, path: path}
				if err := s.setWAL(ctx, DefaultBusyTimeout); err != nil {
					b.Fatal(err)
				}
				if err := s.migrateWith(ctx, ms, c.useSchema); err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}
