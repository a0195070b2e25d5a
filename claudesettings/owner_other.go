//go:build !unix

package claudesettings

import "os"

// keepOwner is a no-op where files have no Unix owner.
func keepOwner(*os.File, string) error { return nil }
