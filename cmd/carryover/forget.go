package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/carryover-dev/carryover/internal/cmdhelp"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retention"
)

// cmdForget removes one session everywhere carryover keeps it, for good
// (see retention.Forgetter); --undo lets it be archived again.
func (a *app) cmdForget(ctx context.Context, args []string) error {
	fl := a.newFlags("forget")
	undo := fl.Bool("undo", false, "let a forgotten session be archived again (give its exact id)")
	yes := fl.Bool("yes", false, "do not ask before forgetting a session given by a prefix of its id")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{fmt.Sprintf("forget: give one session id (or a unique prefix of at least %d characters)", retention.MinPrefix)}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	f := &retention.Forgetter{Store: st, DB: cfg.DB, Log: logPath(a.getenv), Out: a.stdout, Text: a.archivedText(a.stdout)}
	if *undo {
		if err := carryover.ValidArchivedID(pos[0]); err != nil {
			return usageErr{"forget --undo: " + err.Error()}
		}
		return cliErr(f.Unforget(ctx, pos[0]))
	}

	sess, err := a.forgetTarget(ctx, st, pos[0], *yes)
	if errors.Is(err, retention.ErrCancelled) {
		// Answering no is no failure.
		fmt.Fprintln(a.stderr, err)
		return nil
	}
	if err != nil {
		switch s, ok, uerr := f.Unarchived(ctx, pos[0]); {
		case uerr != nil:
			return uerr
		case !ok:
			return err
		default:
			sess = s
		}
	}
	return cliErr(f.Forget(ctx, sess))
}

// forgetTarget finds the session forget removes: the session with the
// exact id, or the one session whose id starts with a prefix of at least
// retention.MinPrefix characters, once the user confirmed it (unless yes).
func (a *app) forgetTarget(ctx context.Context, st carryover.Store, id string, yes bool) (carryover.Session, error) {
	if s, err := st.Session(ctx, id); err == nil {
		return s, nil
	}
	if len(id) < retention.MinPrefix {
		return carryover.Session{}, usageErr{fmt.Sprintf("forget: %q is too short to name a session: give its exact id or at least %d characters of it ('carryover sessions' lists them)",
			id, retention.MinPrefix)}
	}
	sess, err := findSession(ctx, st, id)
	if err != nil || yes {
		return sess, err
	}
	fmt.Fprintf(a.stderr, "%q matches session %s.\nforget it everywhere, for good? [y/N] ", id, retention.Label(sess, a.archivedText(a.stderr)))
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	if !cmdhelp.Confirmed(line) {
		return carryover.Session{}, retention.ErrCancelled
	}
	return sess, nil
}
