package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// The writer child: when these are set, TestWriterProcess applies batches
// to the store and exits. TestConcurrentProcesses sets them.
const (
	envWriterDB = "CARRYOVER_SQLITE_TEST_WRITER_DB"
	envWriterID = "CARRYOVER_SQLITE_TEST_WRITER_ID"
)

const (
	writerBatches = 20
	writerChunks  = 5
)

// writeBatches applies writerBatches small batches of session "w<id>", as
// consecutive hook processes would, plus one audit record per batch.
func writeBatches(ctx context.Context, st *sqlite.Store, id int) error {
	session := fmt.Sprintf("w%d", id)
	for i := range writerBatches {
		b := storetest.Batch(session, "/shared", i*writerChunks, writerChunks)
		if err := st.Apply(ctx, b); err != nil {
			return fmt.Errorf("writer %d batch %d: %w", id, i, err)
		}
		if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: session, Event: "PreCompact"}); err != nil {
			return fmt.Errorf("writer %d injection %d: %w", id, i, err)
		}
	}
	return nil
}

func checkWriters(t *testing.T, path string, writers int) {
	t.Helper()
	ctx := context.Background()
	st := openStore(t, path)
	db := rawDB(t, path)
	if got, want := count(t, db, "chunks"), writers*writerBatches*writerChunks; got != want {
		t.Errorf("%d chunks, want %d", got, want)
	}
	// Per session: one command item per chunk, one error item.
	if got, want := count(t, db, "items"), writers*(writerBatches*writerChunks+1); got != want {
		t.Errorf("%d items, want %d", got, want)
	}
	if got, want := count(t, db, "injections"), writers*writerBatches; got != want {
		t.Errorf("%d injections, want %d", got, want)
	}
	for id := range writers {
		state, err := st.IngestState(ctx, fmt.Sprintf("w%d", id))
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(1000 * writerBatches * writerChunks); state.Offset != want {
			t.Errorf("writer %d: offset %d, want %d", id, state.Offset, want)
		}
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
	if _, err := db.Exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')"); err != nil {
		t.Errorf("fts integrity-check: %v", err)
	}
}

func TestConcurrentStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "carryover.db")
	const writers = 4
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for id := range writers {
		wg.Go(func() {
			// Each writer opens its own store, as separate hooks do.
			st, err := sqlite.Open(context.Background(), path, sqlite.Options{BusyTimeout: 10 * time.Second})
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			errs <- writeBatches(context.Background(), st, id)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	checkWriters(t, path, writers)
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "carryover.db")
	const writers = 3
	cmds := make([]*exec.Cmd, writers)
	outs := make([]bytes.Buffer, writers)
	for id := range writers {
		cmd := exec.Command(exe, "-test.run=^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), envWriterDB+"="+path, envWriterID+"="+strconv.Itoa(id))
		cmd.Stdout, cmd.Stderr = &outs[id], &outs[id]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[id] = cmd
	}
	for id, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer process %d: %v\n%s", id, err, outs[id].Bytes())
		}
	}
	checkWriters(t, path, writers)
}

// TestWriterProcess is the child of TestConcurrentProcesses; on its own it
// skips.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv(envWriterDB)
	if path == "" {
		t.Skip("only run as a child of TestConcurrentProcesses")
	}
	id, err := strconv.Atoi(os.Getenv(envWriterID))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{BusyTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := writeBatches(context.Background(), st, id); err != nil {
		t.Fatal(err)
	}
}
