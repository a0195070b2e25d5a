package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) carryover.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
