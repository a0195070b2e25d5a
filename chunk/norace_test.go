//go:build !race

package chunk

// raceBuild: the tests were built with -race.
const raceBuild = false
