package redact_test

import (
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// BenchmarkStreamTranscript masks the real spotter transcripts as ingest
// does on PreCompact: each line's JSON strings through one Stream, in
// order. MB/s is the redactor's throughput on the hook's path.
func BenchmarkStreamTranscript(b *testing.B) {
	var ls [][]byte
	size := 0
	for _, f := range transcripts(b, "spotter") {
		for _, l := range lines(b, f) {
			ls = append(ls, []byte(l))
			size += len(l)
		}
	}
	r := redact.New(redact.Options{})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		st := r.Stream(redact.Carry{})
		for _, l := range ls {
			st.RedactJSON(l)
		}
	}
}
