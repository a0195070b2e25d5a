//go:build !unix

package sqlite

// Windows has no O_NOFOLLOW: the journal is checked with Lstat first.
const noFollow = 0
