// Package replace puts a file in another's place by renaming it over it,
// the atomic replacement readers rely on (they see the old file or the
// new one), on every system.
package replace

// File renames from over to: see the per-system files for what a rename
// over a file that is in use does there.
func File(from, to string) error { return rename(from, to) }

// Remove removes path, waiting as File does on Windows while another
// process holds it open.
func Remove(path string) error { return remove(path) }
