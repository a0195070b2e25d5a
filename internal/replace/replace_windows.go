package replace

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// retryFor bounds how long a replacement waits for readers: they hold a
// small file for well under a millisecond, and a hook must not wait long.
const retryFor = 250 * time.Millisecond

// rename retries while to is open in another process: Windows refuses to
// replace a file opened without FILE_SHARE_DELETE (as Go's os.Open and
// many editors open files) with "access denied" or a sharing violation,
// until it is closed.
func rename(from, to string) error {
	return retry(func() error { return os.Rename(from, to) })
}

// remove retries the same way: a file open without FILE_SHARE_DELETE
// cannot be deleted either.
func remove(path string) error {
	return retry(func() error { return os.Remove(path) })
}

func retry(op func() error) error {
	deadline := time.Now().Add(retryFor)
	for wait := time.Millisecond; ; wait = min(2*wait, 32*time.Millisecond) {
		err := op()
		if err == nil || !inUse(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

func inUse(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}
