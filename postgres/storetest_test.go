package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// openSchema opens a store on a schema of its own on the server at url.
func openSchema(t *testing.T, url string, opt postgres.Options) *postgres.Store {
	t.Helper()
	// The 300 ms default is for hooks; a loaded test machine forks a
	// server backend slower than that.
	if opt.ConnectTimeout == 0 {
		opt.ConnectTimeout = 10 * time.Second
	}
	st, err := postgres.Open(context.Background(), newSchema(t, url), opt)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	url := serverURL(t, "CARRYOVER_TEST_DATABASE_URL")
	storetest.Run(t, func(t *testing.T) carryover.Store {
		st := openSchema(t, url, postgres.Options{})
		if st.PGVector() {
			t.Fatal("CARRYOVER_TEST_DATABASE_URL has pgvector: that path is tested with CARRYOVER_TEST_PGVECTOR_URL")
		}
		return st
	})
}

// TestConformanceOneRoundTrip runs the suite as hooks open the store:
// each statement in one round trip, unnamed, its parameters typed from
// their Go types; no statement is left prepared on the connection.
func TestConformanceOneRoundTrip(t *testing.T) {
	url := serverURL(t, "CARRYOVER_TEST_DATABASE_URL")
	storetest.Run(t, func(t *testing.T) carryover.Store {
		return openSchema(t, url, postgres.Options{OneRoundTrip: true})
	})
	ctx := context.Background()
	for _, one := range []bool{false, true} {
		st := openSchema(t, url, postgres.Options{OneRoundTrip: one})
		n, err := st.PreparedStatements(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if one && n != 0 || !one && n == 0 {
			t.Errorf("one round trip %v: %d statements left prepared", one, n)
		}
	}
}

// TestConformancePGVector runs the suite on a server with pgvector (PGlite
// in scripts/with-pglite.sh), where vectors live in a vector column.
func TestConformancePGVector(t *testing.T) {
	url := serverURL(t, "CARRYOVER_TEST_PGVECTOR_URL")
	storetest.Run(t, func(t *testing.T) carryover.Store {
		st := openSchema(t, url, postgres.Options{})
		if !st.PGVector() {
			t.Fatal("the server at CARRYOVER_TEST_PGVECTOR_URL has no vector extension")
		}
		return st
	})
}
