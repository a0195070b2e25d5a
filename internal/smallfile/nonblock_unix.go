//go:build unix

package smallfile

import "syscall"

// nonBlock keeps opening a FIFO planted in place of a file from waiting
// for a writer: a hook must never hang.
const nonBlock = syscall.O_NONBLOCK
