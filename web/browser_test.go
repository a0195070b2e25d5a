package web

import (
	"runtime"
	"testing"
)

func TestOpenBrowserWithoutDisplay(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("a desktop is always there on " + runtime.GOOS)
	}
	// Over SSH there is no display: nothing is started, and the caller
	// prints the URL.
	if err := OpenBrowser(func(string) string { return "" }, "http://127.0.0.1:1/"); err == nil || err.Error() != "no display" {
		t.Errorf("got %v, want no display", err)
	}
}
