// Package web serves a read-only local web view of the archive: projects,
// sessions, a session's timeline with its compactions and what carryover
// injected after each, full-text search with highlighted hits, and stats
// with small server-rendered charts. Every page is rendered on the server
// from embedded templates; nothing is fetched from anywhere else.
//
// The view is meant for 127.0.0.1 only. A per-run token guards it: the
// first request carries it in the URL, gets it back as a cookie and is
// redirected to the same page without it; any request with neither gets
// 403, so other local users and web pages cannot read the archive.
package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/termsafe"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// CookieName is the cookie that carries the token after the first request.
const CookieName = "carryover_token"

// Options configure a Server.
type Options struct {
	// Token guards every request; New generates a random one when "".
	Token string
	// Log receives request failures; discarded when nil.
	Log *slog.Logger
	// Now is the clock, for relative times; time.Now when nil.
	Now func() time.Time
}

// Server is the web view's http.Handler.
type Server struct {
	st    carryover.Store
	token string
	log   *slog.Logger
	now   func() time.Time
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New returns a Server reading st, which it does not close.
func New(st carryover.Store, opt Options) (*Server, error) {
	s := &Server{st: st, token: opt.Token, log: opt.Log, now: opt.Now}
	if s.token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("web: token: %w", err)
		}
		s.token = hex.EncodeToString(b)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.handleIndex)
	m.HandleFunc("GET /project", s.handleProject)
	m.HandleFunc("GET /session/{id...}", s.handleSession) // a subagent's id holds a "/"
	m.HandleFunc("GET /search", s.handleSearch)
	m.HandleFunc("GET /stats", s.handleStats)
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r, "no such page") })
	s.mux = m
	return s, nil
}

// Token is the per-run secret that must be in the first URL opened.
func (s *Server) Token() string { return s.token }

// URL is the address to open for a server listening on addr.
func (s *Server) URL(addr net.Addr) string {
	return "http://" + addr.String() + "/?t=" + s.token
}

// ServeHTTP checks the host, the method and the token, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script runs but our own, nothing loads from elsewhere, no page
	// frames this one, and the token never leaves in a Referer.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !loopbackHost(r.Host) {
		// A DNS-rebound name would reach this port from a web page.
		http.Error(w, "forbidden: this view answers only to 127.0.0.1 and localhost", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the view is read-only", http.StatusMethodNotAllowed)
		return
	}
	if t := r.URL.Query().Get("t"); t != "" {
		if !s.validToken(t) {
			http.Error(w, "forbidden: wrong token; open the URL 'carryover ui' printed", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// The same page without the token in the address bar or history.
		u := *r.URL
		q := u.Query()
		q.Del("t")
		u.RawQuery = q.Encode()
		u.Scheme, u.Host = "", ""
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(CookieName)
	if err != nil || !s.validToken(c.Value) {
		http.Error(w, "forbidden: open the URL 'carryover ui' printed (it holds this run's token)", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) validToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var funcs = template.FuncMap{
	"short": carryover.ShortID,
	"path":  url.PathEscape,
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "–"
		}
		return t.Local().Format("2006-01-02 15:04")
	},
	"ms": func(d time.Duration) string {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	},
	"clip":  clip,
	"bytes": stats.Bytes,
	// Archived text may hold control characters and bidirectional
	// overrides, which reorder what a page shows: show them escaped.
	"oneline": termsafe.Line,
	"plain":   termsafe.String,
	"head": func(n int, ss []string) []string {
		return ss[:min(n, len(ss))]
	},
	"beyond": func(n int, ss []string) int {
		return max(len(ss)-n, 0)
	},
}

// parseTemplates parses each page together with the shared layout.
func (s *Server) parseTemplates() error {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	s.pages = map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return fmt.Errorf("web: template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return nil
}

// page is what every template gets: a title and the page's own data.
type page struct {
	Title string
	Query string // the search box's text
	Data  any
}

// render executes a page into a buffer first, so a failure halfway
// becomes a clean 500 and not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	t, ok := s.pages[name]
	if !ok {
		s.fail(w, r, fmt.Errorf("no template %q", name))
		return
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(visibleControls(buf.Bytes()))
}

// visibleControls shows as escapes, anywhere on a page, the characters
// html/template leaves raw that change what a page shows: bidirectional
// overrides and isolates (which reorder text: "exe.txt" for "txt.exe"),
// C1 controls, DEL and C0 controls but tab, newline and carriage return.
// Every piece of archived text gets it, in the body and in <title>, even
// where a template forgets "plain"; the templates themselves hold none.
func visibleControls(page []byte) []byte {
	var out []byte // nil until a character needs escaping
	last := 0
	for i := 0; i < len(page); {
		c := page[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		r, size := utf8.DecodeRune(page[i:])
		if !(r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069) || size == 1 && r == utf8.RuneError {
			i += size
			continue
		}
		out = append(out, page[last:i]...)
		out = append(out, termsafe.Line(string(page[i:i+size]))...)
		i += size
		last = i
	}
	if out == nil {
		return page
	}
	return append(out, page[last:]...)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request, msg string) {
	s.render(w, r, http.StatusNotFound, "notfound", page{Title: "Not found", Data: msg})
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the browser went away
	}
	s.log.Error("web request failed", "path", r.URL.Path, "err", err)
	http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
}

// clip shortens s to n runes on one line.
func clip(n int, s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// ctxTimeout bounds one page's store reads.
func ctxTimeout(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 30*time.Second)
}
