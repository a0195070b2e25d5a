package main

import "github.com/carryover-dev/carryover/demo"

// The tests replay the demo's sample session as package demo splits it.

func splitLines(data []byte) [][]byte { return demo.SplitLines(data) }

func compactionPoint(lines [][]byte) (cut, summaryEnd int, cwd string) {
	return demo.CompactionPoint(lines)
}
