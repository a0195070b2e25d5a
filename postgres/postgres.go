// Package postgres implements carryover.Store on a PostgreSQL server (pgx
// v5), for a team's shared memory or an archive that outgrows a laptop.
//
// It keeps the embedded store's semantics (see package sqlite): the same
// deduplication and merge rules, the same query rules (any text is a valid
// query) and the same hybrid ranking. What it adds is ownership: every row
// carries its owner, project and team, and row-level security lets each
// role read its own rows and those shared with a team it belongs to, and
// write only its own, in sessions of its own, shared only with a team it
// belongs to (see docs/postgres.md for the least-privilege setup).
//
// The schema lives in the connection's search_path (a DSN may name it:
// ?search_path=carryover) and is migrated on Open by whoever may create
// tables there. Vectors are stored int8-quantised in a bytea column, or in
// a pgvector vector(N) column with an HNSW index when the server offers
// the extension when the schema is created.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/carryover-dev/carryover"
	cembed "github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/internal/rawblock"
)

var _ carryover.Store = (*Store)(nil)

// DefaultConnectTimeout bounds connecting when Options.ConnectTimeout is
// zero: a hook must never stall on a server that does not answer.
const DefaultConnectTimeout = 300 * time.Millisecond

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the first key of the advisory lock taken while
// migrating (the second is the schema's name), so that several processes
// opening a new schema at once migrate it once.
const migrationLock = 0x63_61_72_72 // "carr"

// Options configures Open.
type Options struct {
	// ConnectTimeout bounds each connection attempt (default 300 ms).
	ConnectTimeout time.Duration
	// Owner is the owner written on new rows (default: the OS user). With
	// row-level security it must be the role connected as.
	Owner string
	// Team, when not "", shares new sessions, notes and audit rows with the
	// members of that role; "" keeps them private. A batch's Session.Team
	// overrides it for that session. With row security it must be a role
	// the connected role is a member of, or writes fail.
	Team string
	// Embedder embeds chunks and queries (default embedding.DefaultHashed()).
	// As in the embedded store, the first embedder to write claims the
	// schema; opened with another, Search ranks by full text alone.
	Embedder carryover.Embedder
	// VectorNeighbours, with pgvector, adds the chunks nearest to the
	// query's vector (HNSW) that share none of its words to the
	// candidates a search ranks. Off, search ranks exactly the embedded
	// store's way: only full-text matches are candidates (on LoCoMo, the
	// nearest vectors added at most 0.003 of recall).
	VectorNeighbours bool
	// OneRoundTrip runs each statement in one round trip, unnamed, its
	// parameters typed from their Go types, rather than prepared (a round
	// trip) and then run: a short-lived process such as a hook, whose
	// every statement is new, waits half as many round trips on a server
	// across a network; a long-lived one re-runs its prepared statements
	// at less cost to the server. A default_query_exec_mode in the URL
	// wins.
	OneRoundTrip bool
	// Session, when set, is the session a short-lived process (a hook)
	// serves: whether its owner forgot it is read with the schema's
	// version when the store opens, in the same round trip, and the first
	// Forgotten call for it answers from that read.
	Session string
}

// Store is a carryover.Store on a PostgreSQL schema. It is safe for
// concurrent use, also by several processes and users.
type Store struct {
	pool  *pgxpool.Pool
	owner string
	team  string
	emb   carryover.Embedder
	// pgvector is true when the schema stores vectors in a pgvector column
	// (decided when the schema was created), dim is that column's size.
	pgvector bool
	dim      int
	// neighbours: Options.VectorNeighbours.
	neighbours bool
	// embedder is the embedder the stored vectors are of, once the schema
	// names one: set when it is first read or claimed, never changed after
	// (the row is only ever inserted), so a search or an Apply need not
	// read it again.
	embedder atomic.Pointer[string]
	// deferAudit: see HoldAudit; held are the injections it holds.
	deferAudit atomic.Bool
	heldMu     sync.Mutex
	held       []carryover.Injection
	// gone is what the open read of Options.Session's forgotten record
	// found, until the first Forgotten call for it takes it.
	goneMu sync.Mutex
	gone   *sessionGone
	// indexed is set once Backfill found none of this role's chunks left
	// to index again.
	indexed atomic.Bool
	// codecs compress and read the raw lines' blocks.
	codecs rawblock.Pool
}

// Open connects to the server at dsn (a postgres:// URL or key=value
// string), migrates the schema when it is behind and returns the store. A
// schema written by a newer carryover yields an error wrapping
// carryover.ErrSchemaTooNew.
func Open(ctx context.Context, dsn string, opt Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = DefaultConnectTimeout
	}
	cfg.ConnConfig.ConnectTimeout = opt.ConnectTimeout
	if opt.OneRoundTrip && !strings.Contains(dsn, "default_query_exec_mode") {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	if path := cfg.ConnConfig.RuntimeParams["search_path"]; path != "" {
		// Servers and poolers that share one backend between clients
		// (PGlite, PgBouncer in transaction mode) drop start-up
		// parameters: set it again on each new connection.
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SELECT set_config('search_path', $1, false)", path)
			return err
		}
	}
	if opt.Owner == "" {
		opt.Owner = osUser()
	}
	if opt.Embedder == nil {
		opt.Embedder = cembed.DefaultHashed()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	s := &Store{pool: pool, owner: opt.Owner, team: opt.Team, emb: opt.Embedder, neighbours: opt.VectorNeighbours}
	if err := s.init(ctx, opt.Session); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", redact(cfg), err)
	}
	return s, nil
}

// redact names the server without its password, for error messages.
func redact(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// osUser is the name of the user running carryover.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// Owner returns the owner written on new rows.
func (s *Store) Owner() string { return s.owner }

// PGVector reports whether vectors are stored in a pgvector column.
func (s *Store) PGVector() bool { return s.pgvector }

// HoldAudit makes RecordInjection hold its audit row until the next
// RecordHookRun (or Close), which writes both in one round trip: a hook
// records its injection, then its run, and would wait on each. A held
// row's id is 0, and reads do not see it until it is written. A hook sets
// it for its own work only, after pushing its backlog (whose copied rows
// are then written as they come).
func (s *Store) HoldAudit() { s.deferAudit.Store(true) }

// closeFlush bounds how long Close waits to write the audit rows it holds.
const closeFlush = 500 * time.Millisecond

// Close writes the audit rows held (HoldAudit) and closes the
// connections.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeFlush)
	defer cancel()
	err := s.writeAudit(ctx, nil)
	s.pool.Close()
	return err
}

type migration struct {
	version int
	name    string
}

// migrations lists the embedded migrations in version order; a file
// NNNN_name.sql brings the schema to version NNNN.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version", e.Name())
		}
		ms = append(ms, migration{version: v, name: e.Name()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// settings reads the schema version and the vector settings; version 0
// when the schema is empty.
func settings(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (map[string]string, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('meta') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		return map[string]string{}, nil
	}
	return metaRows(ctx, q)
}

// metaRows reads the meta table, which must exist.
func metaRows(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (map[string]string, error) {
	rows, err := q.Query(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return nil, err
	}
	return scanMeta(rows)
}

// scanMeta reads the meta table's rows.
func scanMeta(rows pgx.Rows) (map[string]string, error) {
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// init checks the schema version and migrates when it is behind: opening
// a current schema costs one round trip after connecting.
func (s *Store) init(ctx context.Context, session string) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	want := ms[len(ms)-1].version
	// The meta table first, without asking whether it exists: a schema
	// that has one, every open but the first, costs one round trip, which
	// also reads the session's forgotten record.
	m, err := s.openRead(ctx, session)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		m, err = settings(ctx, s.pool)
	}
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	have, _ := strconv.Atoi(m["schema_version"])
	if have > want {
		return fmt.Errorf("schema version %d, this carryover knows %d: %w", have, want, carryover.ErrSchemaTooNew)
	}
	if have < want {
		if m, err = s.migrate(ctx, ms); err != nil {
			return err
		}
	}
	s.pgvector = m["vec_type"] == "vector"
	s.dim, _ = strconv.Atoi(m["vec_dim"])
	s.knowEmbedder(m["embedder"])
	return nil
}

// sessionGone is whether a session's owner forgot it, as read at open.
type sessionGone struct {
	id   string
	gone bool
}

// openRead reads the meta table and, for a session, its forgotten record,
// in one batch. A schema too old to have the forgotten table, or a new
// one, leaves the record unread.
func (s *Store) openRead(ctx context.Context, session string) (map[string]string, error) {
	if session == "" {
		return metaRows(ctx, s.pool)
	}
	var m map[string]string
	var gone bool
	batch := &pgx.Batch{}
	batch.Queue(`SELECT key, value FROM meta`).Query(func(rows pgx.Rows) error {
		got, err := scanMeta(rows)
		if err == nil {
			m = got
		}
		return err
	})
	batch.Queue(forgottenQuery, s.owner, carryover.ForgottenKey(session)).QueryRow(func(r pgx.Row) error { return r.Scan(&gone) })
	err := s.pool.SendBatch(ctx, batch).Close()
	if m == nil {
		if err == nil {
			err = errors.New("read meta: no answer")
		}
		return nil, err
	}
	if err == nil {
		s.gone = &sessionGone{id: session, gone: gone}
	}
	return m, nil
}

// migrate applies the missing migrations in one transaction, under an
// advisory lock, and returns the settings after it.
func (s *Store) migrate(ctx context.Context, ms []migration) (m map[string]string, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	var schema *string
	if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if schema == nil {
		return nil, errors.New("migrate: no schema to create tables in (the search_path names none that exists)")
	}
	// Another process may have migrated while this one waited for the lock.
	if m, err = settings(ctx, tx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	have, _ := strconv.Atoi(m["schema_version"])
	want := ms[len(ms)-1].version
	if have >= want {
		return m, tx.Commit(ctx)
	}
	vecType, vecIndex := "bytea", ""
	if have == 0 {
		if vecType, vecIndex, err = s.vectorColumn(ctx, tx); err != nil {
			return nil, err
		}
	}
	for _, mg := range ms {
		if mg.version <= have {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + mg.name)
		if err != nil {
			return nil, fmt.Errorf("migrate %s: %w", mg.name, err)
		}
		sql := strings.NewReplacer("{{vec_type}}", vecType, "{{vec_index}}", vecIndex).Replace(string(body))
		if _, err := tx.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("migrate %s: %w", mg.name, err)
		}
		if err := migrateGo(ctx, tx, mg.version); err != nil {
			return nil, fmt.Errorf("migrate %s: %w", mg.name, err)
		}
	}
	set := map[string]string{"schema_version": strconv.Itoa(want)}
	if have == 0 {
		set["vec_type"], set["vec_dim"] = "bytea", strconv.Itoa(s.emb.Dim())
		if vecIndex != "" {
			set["vec_type"] = "vector"
		}
	}
	for k, v := range set {
		if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		m[k] = v
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("migrate: commit: %w", err)
	}
	return m, nil
}

// vectorColumn picks the vector column's type and index for a new schema:
// pgvector's vector(dim) with an HNSW index when the server has the
// extension and this role may create it (or it exists), else bytea.
func (s *Store) vectorColumn(ctx context.Context, tx pgx.Tx) (typ, index string, err error) {
	var available bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&available); err != nil {
		return "", "", fmt.Errorf("migrate: extensions: %w", err)
	}
	// pgvector's HNSW index takes at most 2,000 dimensions.
	if !available || s.emb.Dim() > 2000 {
		return "bytea", "", nil
	}
	// A savepoint: without the privilege to create it, fall back to bytea.
	if _, err := tx.Exec(ctx, `SAVEPOINT vec`); err != nil {
		return "", "", fmt.Errorf("migrate: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		if _, rerr := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT vec`); rerr != nil {
			return "", "", fmt.Errorf("migrate: %w", rerr)
		}
		return "bytea", "", nil
	}
	return fmt.Sprintf("vector(%d)", s.emb.Dim()),
		`CREATE INDEX chunks_vec ON chunks USING hnsw (vec vector_cosine_ops);`, nil
}

// isCode reports whether err is a server error with that SQLSTATE.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// wrap adds context to err; nil stays nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// ts converts a time to a nullable timestamp: the zero time is NULL.
func ts(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// fromTS converts a nullable timestamp to a UTC time, the zero time for
// NULL.
func fromTS(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
