// Package smallfile reads the small files a hook or the status line reads
// on every run (a config file, a recall index, a state file), which
// something else may have replaced: at most a bound, and never waiting on
// a FIFO planted in their place.
package smallfile

import (
	"errors"
	"io"
	"os"
)

// ErrNotRegular is a FIFO, a device or a directory where a file was
// expected.
var ErrNotRegular = errors.New("not a regular file")

// Read reads the regular file at path, at most max bytes: truncated is
// true when it holds more, and data is then its first max bytes. A missing
// file's error wraps fs.ErrNotExist; anything but a regular file (a link
// to one is followed) is ErrNotRegular, found without blocking.
func Read(path string, max int64) (data []byte, truncated bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, ErrNotRegular // bare: callers show the path beside it
	}
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return data[:max], true, nil
	}
	return data, false, nil
}
