package web

import (
	"errors"
	"os/exec"
	"runtime"
)

// OpenBrowser starts the desktop's browser on url, when there is a desktop:
// over SSH there is none and the printed URL is the way in.
func OpenBrowser(getenv func(string) string, url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display")
		}
		cmd = exec.Command("xdg-open", url)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return err // the CLI shows it as the reason to open the URL by hand
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
