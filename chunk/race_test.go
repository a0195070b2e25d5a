//go:build race

package chunk

// raceBuild: the tests were built with -race, which makes them about ten
// times slower; the tests over all the real transcripts then take a sample.
const raceBuild = true
