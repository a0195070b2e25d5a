package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresDatabase creates a database of its own on the server that
// CARRYOVER_TEST_DATABASE_URL names (dropped at cleanup) and returns its
// URL. Without that variable the test is skipped, except under CI=true
// where it fails: CI always provides a server.
func PostgresDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("CARRYOVER_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CARRYOVER_TEST_DATABASE_URL is not set under CI (scripts/with-postgres.sh sets it)")
		}
		t.Skip("CARRYOVER_TEST_DATABASE_URL is not set: no PostgreSQL server to test against (see scripts/with-postgres.sh)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("carryover_test_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
