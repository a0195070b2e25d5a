//go:build race

package ingest_test

// raceBuild: the tests were built with -race.
const raceBuild = true
