//go:build race

package bench

// raceBuild: the tests were built with -race.
const raceBuild = true
