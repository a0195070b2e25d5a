//go:build unix

package e2e

import "syscall"

// gone reports whether no process has the id pid.
func gone(pid int) bool { return syscall.Kill(pid, 0) != nil }
