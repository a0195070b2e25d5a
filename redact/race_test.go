//go:build race

package redact_test

// raceBuild: the tests were built with -race.
const raceBuild = true
