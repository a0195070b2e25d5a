//go:build race

package sqlite_test

// raceBuild: the tests were built with -race.
const raceBuild = true
