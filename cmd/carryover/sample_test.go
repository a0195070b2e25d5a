package main

import (
	"github.com/carryover-dev/carryover/demo"
	"github.com/carryover-dev/carryover/transcript"
)

// The tests replay the demo's sample session as package demo splits it.

func splitLines(data []byte) [][]byte { return transcript.SplitLines(data) }

func compactionPoint(lines [][]byte) (cut, summaryEnd int, cwd string) {
	return demo.CompactionPoint(lines)
}
