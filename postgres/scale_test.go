package postgres_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/postgres"
)

// devWords are words of coding sessions, most frequent first.
var devWords = strings.Fields(`file test error function run code change build output line value type config
	package import return check update add fix module server request response handler client cache query index
	database table column schema migration commit branch merge review comment docs readme install version release
	deploy docker container image port host network timeout retry context cancel deadline goroutine channel mutex`)

var scalePaths = []string{"internal/store/sqlite.go", "cmd/carryover/main.go", "internal/chunk/chunk.go",
	"retrieve/render.go", "transcript/reader.go", "docs/DESIGN.md", "README.md", "hook/hook.go",
	"internal/build/cache.go", "web/src/App.tsx", "scripts/release.sh", "Makefile"}

// scaleVocab is devWords followed by 50,000 made-up words: drawn with a
// Zipf law, the first are in most chunks and the last in a handful, as in
// a large archive.
func scaleVocab() []string {
	v := slices.Clone(devWords)
	for i := range 50000 {
		v = append(v, "w"+strconv.FormatInt(int64(i)*7919%1000003, 36))
	}
	return v
}

// scaleChunks generates n chunks of about 700 bytes for a session.
func scaleChunks(r *rand.Rand, zipf *rand.Zipf, vocab []string, session, project string, n int) []carryover.Chunk {
	word := func() string { return vocab[zipf.Uint64()] }
	out := make([]carryover.Chunk, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < 700 {
			if r.Intn(15) == 0 {
				b.WriteString(scalePaths[r.Intn(len(scalePaths))])
			} else {
				b.WriteString(word())
			}
			b.WriteByte(' ')
		}
		text := b.String()
		out[i] = carryover.Chunk{SessionID: session, Project: project, Seq: i, Turn: i / 4, Window: i / 200,
			FirstLine: 10*i + 1, LastLine: 10*i + 9, Start: time.Unix(1_760_000_000+int64(i), 0).UTC(),
			Prompt: "please " + word() + " the " + word(), Summary: text[:150], Text: text,
			Files:    []string{scalePaths[r.Intn(len(scalePaths))]},
			Commands: []string{"go test ./" + word() + "/..."},
			Hash:     fmt.Sprintf("%s-%d", session, i)}
	}
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// TestScale loads CARRYOVER_PG_SCALE chunks (e.g. 1000000) into a schema
// with COPY (postgres.Store.Load), in sessions of 1,000 chunks spread over
// 50 projects, then times hook-sized Apply calls and searches. It reports
// its figures with t.Log (run with -v); nothing is asserted on time. Not
// run unless the variable is set: it takes minutes and gigabytes.
func TestScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CARRYOVER_PG_SCALE"))
	if n <= 0 {
		t.Skip("CARRYOVER_PG_SCALE is not set (the number of chunks to load, e.g. 1000000)")
	}
	ctx := context.Background()
	emb := carryover.Embedder(embedding.DefaultHashed())
	if os.Getenv("CARRYOVER_PG_SCALE_VECTORS") == "0" {
		emb = noVectors{}
	}
	st := openSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"), postgres.Options{Embedder: emb})
	vocab := scaleVocab()
	r := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	const perSession, projects = 1000, 50

	start := time.Now()
	var gen time.Duration
	loaded := 0
	for s := 0; loaded < n; s++ {
		id := fmt.Sprintf("s%06d", s)
		project := fmt.Sprintf("/src/project%02d", s%projects)
		g := time.Now()
		chunks := scaleChunks(r, zipf, vocab, id, project, min(perSession, n-loaded))
		gen += time.Since(g)
		k, err := st.Load(ctx, carryover.Session{ID: id, Project: project, Updated: time.Now()}, chunks)
		if err != nil {
			t.Fatal(err)
		}
		loaded += int(k)
		if s%100 == 99 {
			t.Logf("%d chunks, %.0f/s", loaded, float64(loaded)/(time.Since(start)-gen).Seconds())
		}
	}
	took := time.Since(start) - gen
	size, _ := st.Size(ctx)
	t.Logf("LOAD %d chunks in %v (text generation excluded): %.0f chunks/s; schema size %d MB",
		loaded, took.Round(time.Second), float64(loaded)/took.Seconds(), size>>20)

	// Hook-sized writes into the loaded schema: 5 chunks and 5 items each.
	var applies []time.Duration
	for i := range 100 {
		id := fmt.Sprintf("hook%03d", i)
		b := carryover.Batch{Session: carryover.Session{ID: id, Project: "/src/project00", Updated: time.Now()},
			Chunks: scaleChunks(r, zipf, vocab, id, "/src/project00", 5)}
		for _, c := range b.Chunks {
			b.Items = append(b.Items, carryover.Item{ChunkSeq: c.Seq, Kind: carryover.KindCommand, Key: c.Hash, Text: c.Commands[0], Line: c.FirstLine})
		}
		t0 := time.Now()
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		applies = append(applies, time.Since(t0))
	}
	t.Logf("APPLY 5 chunks + 5 items, 100 runs: p50 %v p95 %v", percentile(applies, .5).Round(10*time.Microsecond),
		percentile(applies, .95).Round(10*time.Microsecond))

	// Searches: two or three words of the vocabulary, frequent to rare,
	// half in one project.
	qr := rand.New(rand.NewSource(2))
	var all, inProject []time.Duration
	hits := 0
	for i := range 200 {
		var ws []string
		for range 2 + qr.Intn(2) {
			ws = append(ws, vocab[min(len(vocab)-1, int(qr.ExpFloat64()*2000))])
		}
		q := carryover.Query{Text: strings.Join(ws, " "), Limit: 10}
		if i%2 == 1 {
			q.Project = fmt.Sprintf("/src/project%02d", qr.Intn(projects))
		}
		t0 := time.Now()
		hs, err := st.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(t0)
		hits += len(hs)
		if q.Project != "" {
			inProject = append(inProject, d)
		} else {
			all = append(all, d)
		}
	}
	t.Logf("SEARCH all projects, 100 queries: p50 %v p95 %v", percentile(all, .5).Round(10*time.Microsecond), percentile(all, .95).Round(10*time.Microsecond))
	t.Logf("SEARCH one project, 100 queries: p50 %v p95 %v (%.1f hits per query)", percentile(inProject, .5).Round(10*time.Microsecond),
		percentile(inProject, .95).Round(10*time.Microsecond), float64(hits)/200)
}

// noVectors embeds nothing: a scale run of the full-text side alone, as
// embedding costs more than the server's whole insert.
type noVectors struct{}

func (noVectors) Name() string { return "none" }
func (noVectors) Dim() int     { return 1 }
func (noVectors) Embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{0}
	}
	return out
}

// TestScaleRowSecurity times what row security costs a role: it loads
// CARRYOVER_PG_RLS_SCALE chunks (e.g. 20000), half alice's own and half
// her teammate bob's shared with their team, in 10 projects, then times
// the same searches and hook-sized writes as alice (every row through the
// policies) and as the schema's owner (no row security). It reports its
// figures with t.Log (run with -v); nothing is asserted on time.
func TestScaleRowSecurity(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CARRYOVER_PG_RLS_SCALE"))
	if n <= 0 {
		t.Skip("CARRYOVER_PG_RLS_SCALE is not set (the number of chunks to load, e.g. 20000)")
	}
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	owner := open(t, admin, postgres.Options{Owner: "admin", Embedder: noVectors{}})
	r, team := roles(t, admin, "alice", "bob")
	if err := grant(admin, "GRANT "+team+" TO "+r["alice"]+", "+r["bob"]); err != nil {
		t.Fatal(err)
	}
	alice := open(t, asRole(t, admin, r["alice"]), postgres.Options{Owner: r["alice"], Embedder: noVectors{}})
	bob := open(t, asRole(t, admin, r["bob"]), postgres.Options{Owner: r["bob"], Team: team, Embedder: noVectors{}})
	vocab := scaleVocab()
	rnd := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rnd, 1.1, 1, uint64(len(vocab)-1))
	const perSession, projects = 500, 10
	for s, loaded := 0, 0; loaded < n; s++ {
		st := []*postgres.Store{alice, bob}[s%2]
		id := fmt.Sprintf("s%05d", s)
		project := fmt.Sprintf("/src/project%02d", s/2%projects)
		chunks := scaleChunks(rnd, zipf, vocab, id, project, min(perSession, n-loaded))
		k, err := st.Load(ctx, carryover.Session{ID: id, Project: project, Updated: time.Now()}, chunks)
		if err != nil {
			t.Fatal(err)
		}
		loaded += int(k)
	}
	if err := grant(admin, "ANALYZE sessions, chunks, items"); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct {
		name string
		st   *postgres.Store
	}{{"alice (row security)", alice}, {"schema owner (none)", owner}} {
		qr := rand.New(rand.NewSource(2))
		var all, inProject, applies []time.Duration
		for i := range 100 {
			var ws []string
			for range 2 + qr.Intn(2) {
				ws = append(ws, vocab[min(len(vocab)-1, int(qr.ExpFloat64()*2000))])
			}
			q := carryover.Query{Text: strings.Join(ws, " "), Limit: 10}
			if i%2 == 1 {
				q.Project = fmt.Sprintf("/src/project%02d", qr.Intn(projects))
			}
			t0 := time.Now()
			if _, err := who.st.Search(ctx, q); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); q.Project != "" {
				inProject = append(inProject, d)
			} else {
				all = append(all, d)
			}
		}
		for i := range 50 {
			id := fmt.Sprintf("hook-%s-%03d", who.st.Owner(), i)
			b := carryover.Batch{Session: carryover.Session{ID: id, Project: "/src/project00", Updated: time.Now()},
				Chunks: scaleChunks(rnd, zipf, vocab, id, "/src/project00", 5)}
			for _, c := range b.Chunks {
				b.Items = append(b.Items, carryover.Item{ChunkSeq: c.Seq, Kind: carryover.KindCommand, Key: c.Hash, Text: c.Commands[0], Line: c.FirstLine})
			}
			t0 := time.Now()
			if err := who.st.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			applies = append(applies, time.Since(t0))
		}
		t.Logf("%s: SEARCH all projects p50 %v p95 %v; one project p50 %v p95 %v; APPLY 5 chunks + 5 items p50 %v p95 %v", who.name,
			percentile(all, .5).Round(10*time.Microsecond), percentile(all, .95).Round(10*time.Microsecond),
			percentile(inProject, .5).Round(10*time.Microsecond), percentile(inProject, .95).Round(10*time.Microsecond),
			percentile(applies, .5).Round(10*time.Microsecond), percentile(applies, .95).Round(10*time.Microsecond))
	}
}

// grant runs one statement as the server's admin.
func grant(dsn, sql string) error {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}
