package redact_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// transcripts returns the real transcripts in ../shared, skipping (or
// failing under CI=true) when they are absent.
func transcripts(tb testing.TB, glob string) []string {
	tb.Helper()
	dir := filepath.Join("..", "..", "shared", "data", "transcripts")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("../shared is missing under CI: %v", err)
		}
		tb.Skipf("../shared is not beside this repo: %v", err)
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if ok, _ := filepath.Match(glob, filepath.Base(filepath.Dir(p))); ok || glob == "" {
				files = append(files, p)
			}
		}
		return nil
	})
	if len(files) == 0 {
		tb.Fatalf("no transcripts under %s", dir)
	}
	return files
}

func lines(tb testing.TB, path string) []string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestRealTranscripts masks every line of the real transcripts: the output
// must stay valid where the input was, masking must be idempotent, and the
// masks made are reported (CARRYOVER_REDACT_SHOW=1 prints each with its
// context, to check them by eye).
func TestRealTranscripts(t *testing.T) {
	r := redact.New(redact.Options{})
	total := map[string]int{}
	var n, bytesIn int
	show := os.Getenv("CARRYOVER_REDACT_SHOW") == "1"
	for _, f := range transcripts(t, "") {
		for _, line := range lines(t, f) {
			n++
			bytesIn += len(line)
			out, counts := r.Redact(line)
			if counts == nil {
				continue
			}
			redact.AddCounts(&total, counts)
			if again, c := r.Redact(out); again != out || c != nil {
				t.Errorf("%s: not idempotent: %v", f, c)
			}
			if show {
				for k := 0; ; {
					i := strings.Index(out[k:], "[REDACTED:")
					if i < 0 {
						break
					}
					i += k
					fmt.Printf("%s: …%s…\n", filepath.Base(f), out[max(0, i-80):min(len(out), i+60)])
					k = i + 1
				}
			}
		}
	}
	keys := make([]string, 0, len(total))
	sum := 0
	for k, v := range total {
		keys = append(keys, k)
		sum += v
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, total[k])
	}
	t.Logf("real transcripts: %d lines, %.1f MB, %d masks:%s", n, float64(bytesIn)/1e6, sum, b.String())
}

// BenchmarkRedactTranscript masks the real spotter transcripts line by
// line, as ingest meets them; MB/s is the figure to report.
func BenchmarkRedactTranscript(b *testing.B) {
	var ls []string
	size := 0
	for _, f := range transcripts(b, "spotter") {
		for _, l := range lines(b, f) {
			ls = append(ls, l)
			size += len(l)
		}
	}
	r := redact.New(redact.Options{})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			r.Redact(l)
		}
	}
}

// BenchmarkRedactChunks masks 1 KB texts without secrets, the size of a
// chunk's text.
func BenchmarkRedactChunks(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for range 1000 {
		fmt.Fprintf(w, "$ go test ./widget%d/...\nok  example.com/widget %d.%03ds\nThe token budget is %d; password reset flow in auth/handler.go:%d\n",
			rng.IntN(100), rng.IntN(3), rng.IntN(1000), rng.IntN(9000), rng.IntN(500))
	}
	w.Flush()
	text := buf.String()
	var chunks []string
	for len(text) > 1000 {
		chunks = append(chunks, text[:1000])
		text = text[1000:]
	}
	r := redact.New(redact.Options{})
	b.SetBytes(int64(len(chunks) * 1000))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			r.Redact(c)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		redact.New(redact.Options{})
	}
}

// BenchmarkRedactAllTranscripts masks every real transcript (both sets)
// line by line.
func BenchmarkRedactAllTranscripts(b *testing.B) {
	var ls []string
	size := 0
	for _, f := range transcripts(b, "") {
		for _, l := range lines(b, f) {
			ls = append(ls, l)
			size += len(l)
		}
	}
	r := redact.New(redact.Options{})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			r.Redact(l)
		}
	}
}

// BenchmarkRedactPathological masks one 7 MB line of a repeated
// secret-named assignment ("pass=pass=..."), the shape that once took
// seconds and made every hook of its session time out.
func BenchmarkRedactPathological(b *testing.B) {
	for _, unit := range []string{"pass=", "password=", "token: ", "-----BEGIN PRIVATE KEY-----\n", "://u:p@h",
		`password="` + strings.Repeat("A1", 300), "echo x | sudo -S ", ":5432:", "ghp_abcdefgh\n", "openssl rand\nAAAAAAAAAAAAAAAA1\n"} {
		line := strings.Repeat(unit, 7<<20/len(unit))
		b.Run(strings.TrimSpace(unit[:min(len(unit), 16)]), func(b *testing.B) {
			r := redact.New(redact.Options{})
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				r.Redact(line)
			}
		})
	}
}
