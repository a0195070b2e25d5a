//go:build !unix

package smallfile

const nonBlock = 0
