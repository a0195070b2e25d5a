package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/storeopen"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/replicate"
)

// cmdMigrate copies the local SQLite archive to a server (--to) or a
// server's archive to the local file (--from).
func (a *app) cmdMigrate(ctx context.Context, args []string) error {
	fs := a.newFlags("migrate")
	to := fs.String("to", "", "copy the local archive to this PostgreSQL URL")
	from := fs.String("from", "", "copy the archive at this PostgreSQL URL to the local store")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || (*to == "") == (*from == "") {
		return usageErr{"migrate wants exactly one of --to URL or --from URL"}
	}
	dsn := *to + *from
	if err := checkURL(dsn); err != nil {
		return err
	}
	cfg, err := a.loadConfig(cwd())
	if err != nil {
		return err
	}
	local, err := a.openLocal(ctx, cfg.DB, *to != "")
	if err != nil {
		return err
	}
	defer local.Close()
	marks, err := spool.Pending(cfg.DB)
	if err != nil {
		return fmt.Errorf("pending sessions: %w", err)
	}
	server, err := openServer(ctx, cfg, dsn, cliConnectTimeout)
	if err != nil {
		return hintErr{err, serverHint(dsn)}
	}
	defer server.Close()
	var dst, src carryover.Store = server, local
	if *from != "" {
		dst, src = local, server
	}
	bar := progress.New(a.stderr, 0, "migrate")
	rep, err := replicate.Copy(ctx, dst, src, replicate.Options{Progress: copyProgress(bar)})
	bar.Done()
	if err != nil {
		return hintErr{fmt.Errorf("migrate: %w", err), resumeHint}
	}
	if *to != "" && dsn == cfg.DatabaseURL {
		// Everything local is on the configured server now.
		for _, m := range marks {
			if err := m.Clear(); err != nil {
				return fmt.Errorf("clear pending mark: %w", err)
			}
		}
	}
	dir := "to " + storeopen.RedactURL(dsn)
	if *from != "" {
		dir = "from " + storeopen.RedactURL(dsn) + " to " + cfg.DB
	}
	fmt.Fprintf(a.stdout, "carryover: migrated %s %s\n", rep.Summary(), dir)
	return nil
}

// openLocal opens the SQLite store; with mustExist a missing file is an
// error rather than a new, empty store.
func (a *app) openLocal(ctx context.Context, path string, mustExist bool) (storeopen.LocalStore, error) {
	if mustExist {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, hintErr{fmt.Errorf("no local store at %s", path), "use --db PATH or CARRYOVER_DB to name the SQLite store to copy"}
		}
	}
	st, err := storeopen.Local(ctx, path, storeopen.LocalOptions{})
	if err != nil {
		return nil, storeErr(err)
	}
	return st, nil
}
