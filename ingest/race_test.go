//go:build race

package ingest_test

// raceBuild: the tests were built with -race, which slows them several
// times over: timings mean nothing then.
const raceBuild = true
