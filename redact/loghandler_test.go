package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// ghToken is a synthetic GitHub token, built at run time.
var ghToken = "ghp_" + strings.Repeat("Qz7Xw", 7) + "K"

// TestLogMasks: a secret that reaches a log call is masked in the file.
func TestLogMasks(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler{slog.NewTextHandler(&buf, nil), New(Options{})}).With("token", ghToken)
	log.Error("push failed for https://bot:"+ghToken+"@github.com/o/r", "err", os.ErrNotExist, "cmd", "curl -H 'Authorization: Bearer "+ghToken+"'",
		slog.Group("g", "arg", ghToken))
	if strings.Contains(buf.String(), ghToken) || !strings.Contains(buf.String(), "[REDACTED:github-pat]") {
		t.Errorf("log line not masked: %s", buf.String())
	}
	if !strings.Contains(buf.String(), "file does not exist") {
		t.Errorf("log line lost an attribute: %s", buf.String())
	}
}

// TestLogMasksProbeShapes: the log handler masks the shapes a probe once
// found stored verbatim, in the message and in every kind of attribute.
func TestLogMasksProbeShapes(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler{slog.NewTextHandler(&buf, nil), New(Options{})}).With("cmd", "mysql -u root -pmyPw42 shop")
	log.Error("ingest failed on: curl -u deploy:hunter2 https://ci.example.com", "err", errors.New("exit 1: sshpass -p sshPw1 ssh h"),
		slog.Group("env", "line", "PGPASSWORD=pgpw77 psql", "url", "postgres://app:p#a/s<s>9@db/shop"),
		"header", "Cookie: session=abc123sess")
	for _, v := range []string{"myPw42", "hunter2", "sshPw1", "pgpw77", "p#a/s<s>9", "abc123sess"} {
		if strings.Contains(buf.String(), v) {
			t.Errorf("%q in the log: %s", v, buf.String())
		}
	}
}
