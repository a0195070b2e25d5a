package main

import (
	"context"
	"fmt"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storeopen"
)

// Store selection: database_url's PostgreSQL server, else the SQLite file,
// which stays the hooks' spool while the server is unreachable (spool, hook).

// cliConnectTimeout bounds the CLI's connection to the server.
const cliConnectTimeout = 5 * time.Second

// openServer connects to the configured server.
func openServer(ctx context.Context, cfg config, dsn string, timeout time.Duration) (carryover.Store, error) {
	return storeopen.Server(ctx, dsn, storeopen.ServerOptions{ConnectTimeout: timeout, Owner: cfg.Owner, Team: cfg.Team})
}

// openServerOnce connects to the configured server for a command that runs
// a search and exits: each statement runs in one round trip, as the hooks'
// do, rather than prepared first (postgres.Options.OneRoundTrip).
func openServerOnce(ctx context.Context, cfg config, dsn string, timeout time.Duration) (carryover.Store, error) {
	return storeopen.Server(ctx, dsn, storeopen.ServerOptions{ConnectTimeout: timeout, Owner: cfg.Owner, Team: cfg.Team,
		OneRoundTrip: true})
}

// serverHint is the hint of a server that cannot be used.
func serverHint(dsn string) string {
	return fmt.Sprintf("check that the server at %s is running and reachable, and the database_url setting "+
		"(or CARRYOVER_DATABASE_URL); hooks keep working on the local store meanwhile and 'carryover sync' pushes their backlog", storeopen.RedactURL(dsn))
}

// checkURL rejects what is not a PostgreSQL URL before anything connects.
func checkURL(dsn string) error {
	if err := storeopen.CheckURL(dsn); err != nil {
		return hintErr{err, "write it as postgres://USER@HOST:PORT/DATABASE (see docs/postgres.md)"}
	}
	return nil
}
