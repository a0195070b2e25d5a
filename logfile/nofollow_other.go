//go:build !unix

package logfile

const noFollow = 0
