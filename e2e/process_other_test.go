//go:build !unix

package e2e

import "os"

// gone reports whether no process has the id pid: here finding a process
// opens it, which fails once it has exited.
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
