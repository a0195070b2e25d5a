//go:build unix

package main

import "syscall"

const noFollow = syscall.O_NOFOLLOW
