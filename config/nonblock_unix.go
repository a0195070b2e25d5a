//go:build unix

package config

import "syscall"

// nonBlock keeps opening a FIFO planted in place of a config file from
// waiting for a writer: a hook must never hang.
const nonBlock = syscall.O_NONBLOCK
