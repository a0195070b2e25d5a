//go:build !race

package transcript

// raceBuild: the tests were built with -race.
const raceBuild = false
