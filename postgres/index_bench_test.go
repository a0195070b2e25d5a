package postgres

import (
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

func BenchmarkIndexChunk(b *testing.B) {
	c := carryover.Chunk{Prompt: "fix the flaky deploy test", Summary: "ran go test and edited cache.go",
		Text:  strings.Repeat("The assistant ran go test ./... and looked at internal/build/cache.go; parseHTTPResponse failed. ", 10),
		Files: []string{"internal/build/cache.go"}, Commands: []string{"go test -run TestCache ./..."}}
	b.SetBytes(int64(len(c.Text)))
	for b.Loop() {
		indexChunk(c)
	}
}
