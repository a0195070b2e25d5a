package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseScript builds this platform's release binary with
// scripts/release.sh and checks its checksum line and version. A build
// takes a minute on a loaded machine, so it runs under CI=true or
// CARRYOVER_RELEASE_TEST=1 only.
func TestReleaseScript(t *testing.T) {
	if os.Getenv("CI") != "true" && os.Getenv("CARRYOVER_RELEASE_TEST") != "1" {
		t.Skip("skipped: builds a release binary; run with CARRYOVER_RELEASE_TEST=1 (CI=true runs it)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("skipped: scripts/release.sh needs bash")
	}
	out := t.TempDir()
	const version = "v0.0.0-releasetest"
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "release.sh"), out)
	cmd.Env = append(os.Environ(), "VERSION="+version, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, msg)
	}
	name := fmt.Sprintf("carryover_%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
	bin, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x  %s\n", sha256.Sum256(bin), name); string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", sums, want)
	}
	got, err := exec.Command(filepath.Join(out, name), "version").Output()
	if err != nil || strings.TrimSpace(string(got)) != "carryover "+version {
		t.Errorf("version: %q %v", got, err)
	}
}
