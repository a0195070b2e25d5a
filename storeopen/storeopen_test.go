package storeopen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/storetest"
)

const sid = "5e1ec700-0000-4000-8000-000000000001"

// roundTrip writes a session through st and reads it back.
func roundTrip(t *testing.T, st carryover.Store) {
	t.Helper()
	ctx := context.Background()
	b := carryover.Batch{
		Session: carryover.Session{ID: sid, Project: "/src/p", Title: "opened through storeopen", Started: time.Unix(1e9, 0)},
		Chunks:  []carryover.Chunk{{SessionID: sid, Project: "/src/p", Seq: 0, FirstLine: 1, LastLine: 2, Text: "the selected store holds this", Hash: "h0"}},
		State:   carryover.IngestState{SessionID: sid, Line: 2},
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "opened through storeopen" {
		t.Fatalf("title %q", s.Title)
	}
}

func TestOpenLocalWithoutServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "store.db")
	st, err := storeopen.Open(context.Background(), storeopen.Config{DB: db}, time.Second, storeopen.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := storeopen.Owned(context.Background(), db); err != nil {
		t.Fatalf("the store Open made is not carryover's: %v", err)
	}
	local, err := storeopen.Local(context.Background(), db, storeopen.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	h, err := local.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Sessions != 1 || h.Chunks != 1 {
		t.Fatalf("Check: %+v, want 1 session and 1 chunk", h)
	}
}

func TestLocalLeavesOtherFilesAlone(t *testing.T) {
	db := filepath.Join(t.TempDir(), "notes.txt")
	want := strings.Repeat("not a store\n", 100)
	if err := os.WriteFile(db, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := storeopen.Local(context.Background(), db, storeopen.LocalOptions{})
	if err == nil {
		st.Close()
		t.Fatal("opened a text file as a store")
	}
	if st != nil {
		t.Fatal("a failed Local returned a non-nil store")
	}
	if !errors.Is(err, storeopen.ErrCorrupt) && !errors.Is(err, storeopen.ErrNotStore) {
		t.Fatalf("err %v: neither ErrCorrupt nor ErrNotStore", err)
	}
	if got, _ := os.ReadFile(db); string(got) != want {
		t.Fatal("the file was changed")
	}
}

func TestServerErrorMasksPassword(t *testing.T) {
	// Nothing listens on port 1: the connection is refused at once.
	dsn := "postgres://me:s3cret@127.0.0.1:1/db?sslmode=disable"
	_, err := storeopen.Server(context.Background(), dsn, storeopen.ServerOptions{ConnectTimeout: time.Second})
	if err == nil {
		t.Fatal("connected to nothing")
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "connect to") {
		t.Fatalf("error %q: want the server named, its password masked", err)
	}
}

func TestOpenServerWhenConfigured(t *testing.T) {
	dsn := storetest.PostgresDatabase(t)
	// DB names a file that must stay untouched: the server is the store.
	db := filepath.Join(t.TempDir(), "spool.db")
	st, err := storeopen.Open(context.Background(), storeopen.Config{DB: db, DatabaseURL: dsn}, 5*time.Second, storeopen.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(storeopen.LocalStore); ok {
		t.Fatal("database_url set, but the local store was opened")
	}
	roundTrip(t, st)
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the local file was created: %v", err)
	}
}
