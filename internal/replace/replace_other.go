//go:build !windows

package replace

import "os"

// rename is one rename(2): it replaces to even while others have it open,
// and they keep reading the old file.
func rename(from, to string) error { return os.Rename(from, to) }

func remove(path string) error { return os.Remove(path) }
