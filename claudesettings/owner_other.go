//go:build !unix

package claudesettings

import (
	"io/fs"
	"os"
)

// keepOwner is a no-op where files have no Unix owner.
func keepOwner(*os.File, string) error { return nil }

// checkOwner is a no-op where files have no Unix owner.
func checkOwner(fs.FileInfo) error { return nil }
