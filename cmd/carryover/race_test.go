//go:build race

package main

// raceBuild: the tests were built with -race.
const raceBuild = true
