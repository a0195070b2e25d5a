package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/carryover-dev/carryover/web"
)

func (a *app) cmdUI(ctx context.Context, args []string) error {
	fl := a.newFlags("ui")
	port := fl.Int("port", 0, "port on 127.0.0.1 (0 picks a free one)")
	noOpen := fl.Bool("no-open", false, "only print the URL; do not start a browser")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return usageErr{"ui: --port must be between 0 and 65535"}
	}
	cfg, st, err := a.readStore(ctx, "", true)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := web.New(st, web.Options{Log: a.log})
	if err != nil {
		return err
	}
	// Loopback only: the archive holds whole conversations.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return hintErr{fmt.Errorf("ui: %w", err), "choose another --port, or 0 for a free one"}
	}
	url := srv.URL(ln.Addr())
	fmt.Fprintf(a.stdout, "carryover ui: %s\n(read-only view of %s; Ctrl-C stops it)\n", url, cfg.DB)
	if !*noOpen {
		if err := web.OpenBrowser(a.getenv, url); err != nil {
			fmt.Fprintf(a.stdout, "open the URL in a browser on this machine (%v)\n", err)
		}
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("ui: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}
