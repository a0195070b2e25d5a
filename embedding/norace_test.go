//go:build !race

package embedding

// raceBuild: the tests were built with -race.
const raceBuild = false
