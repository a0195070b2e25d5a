package postgres_test

import (
	"os"
	"testing"

	"github.com/carryover-dev/carryover/internal/skipnote"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv("CARRYOVER_TEST_DATABASE_URL") == "" {
		skipnote.Print("the PostgreSQL store tests (no server)",
			"scripts/with-postgres.sh go test ./postgres/ ./storetest/ runs them against a throwaway one")
	}
	os.Exit(code)
}
