package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// TestFullTextIndex: the schema owner's searches can use the full-text
// index; a role under row security's only once ts_match_vq is leakproof,
// and declaring it so shows the role no row its policies hide.
func TestFullTextIndex(t *testing.T) {
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	owner := open(t, admin, postgres.Options{Owner: "admin"})
	if usable, rls, err := owner.FullTextIndex(ctx); err != nil || !usable || rls {
		t.Fatalf("schema owner: usable %v, row security %v, %v; want usable, no row security", usable, rls, err)
	}
	r, _ := roles(t, admin, "alice", "bob")
	alice := open(t, asRole(t, admin, r["alice"]), postgres.Options{Owner: r["alice"]})
	bob := open(t, asRole(t, admin, r["bob"]), postgres.Options{Owner: r["bob"]})
	private := storetest.Batch("b-private", "/repo", 0, 2)
	private.Chunks[0].Text += " quokkaword"
	if err := bob.Apply(ctx, private); err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var super, was bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT proleakproof FROM pg_proc WHERE oid = 'ts_match_vq(tsvector, tsquery)'::regprocedure`).Scan(&was); err != nil {
		t.Fatal(err)
	}
	states := []bool{was}
	if super {
		states = []bool{false, true}
		t.Cleanup(func() {
			c, err := pgx.Connect(context.Background(), admin)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(context.Background(), leakproof(was)); err != nil {
				t.Error(err)
			}
		})
	} else {
		t.Log("the test server's role is not a superuser: ts_match_vq's leakproofness is tested as it is")
	}
	for _, lp := range states {
		if super {
			if _, err := conn.Exec(ctx, leakproof(lp)); err != nil {
				t.Fatal(err)
			}
		}
		usable, rls, err := alice.FullTextIndex(ctx)
		if err != nil || !rls || usable != lp {
			t.Errorf("role, ts_match_vq leakproof %v: usable %v, row security %v, %v; want usable %v under row security", lp, usable, rls, err, lp)
		}
		if hits, err := alice.Search(ctx, carryover.Query{Text: "quokkaword"}); err != nil || len(hits) != 0 {
			t.Errorf("leakproof %v: a role found %d of another role's private chunks (%v)", lp, len(hits), err)
		}
		if hits, err := bob.Search(ctx, carryover.Query{Text: "quokkaword"}); err != nil || len(hits) != 1 {
			t.Errorf("leakproof %v: its owner found %d of its chunks (%v), want 1", lp, len(hits), err)
		}
	}
}

func leakproof(on bool) string {
	if on {
		return "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF"
	}
	return "ALTER FUNCTION ts_match_vq(tsvector, tsquery) NOT LEAKPROOF"
}
