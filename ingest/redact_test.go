package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/storetest"
)

// secretTranscript is a session whose prompt, commands, tool results,
// structured results, edits, errors and compaction summary hold secrets.
func secretTranscript(sec map[string]string) []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"] = sid
		v["cwd"] = "/home/dev/proj"
		v["timestamp"] = ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	user := func(content any) {
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	}
	assistant := func(blocks ...any) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", len(lines)), "role": "assistant", "content": blocks}})
	}
	result := func(id, text string, isErr bool, structured any) {
		add(map[string]any{"type": "user", "toolUseResult": structured, "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": isErr}}}})
	}
	user("deploy with GITHUB_TOKEN=" + sec["github"] + " and make the release")
	assistant(map[string]any{"type": "tool_use", "id": "tu_1", "name": "Bash", "input": map[string]any{
		"command": "git push https://bot:" + sec["github"] + "@github.com/acme/app.git main"}})
	result("tu_1", "remote: Permission denied", true, "Error: Exit code 1\nremote: Permission denied")
	assistant(map[string]any{"type": "tool_use", "id": "tu_2", "name": "Bash", "input": map[string]any{"command": "env | sort"}})
	env := "AWS_ACCESS_KEY_ID=" + sec["aws"] + "\nDB_PASSWORD=" + sec["password"] + "\nHOME=/home/dev\nSTRIPE_KEY=" + sec["stripe"]
	result("tu_2", env, false, map[string]any{"stdout": env, "stderr": "", "interrupted": false})
	assistant(map[string]any{"type": "tool_use", "id": "tu_3", "name": "Edit", "input": map[string]any{
		"file_path": "/home/dev/proj/config/prod.yaml", "old_string": "password: changeme", "new_string": "password: " + sec["password"]}})
	result("tu_3", "The file /home/dev/proj/config/prod.yaml has been updated.", false,
		map[string]any{"filePath": "/home/dev/proj/config/prod.yaml", "newString": "password: " + sec["password"], "originalFile": "db:\n  password: changeme\n"})
	assistant(map[string]any{"type": "text", "text": "IMPORTANT: the service key is " + sec["custom"] + "; the JWT we got is " + sec["jwt"]})
	add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
	user("This session is being continued from a previous conversation that ran out of context. Summary: 1. Primary Request: release with token " + sec["github"] + " and the key\n" + sec["pem"])
	lines[len(lines)-1] = strings.Replace(lines[len(lines)-1], `"type":"user"`, `"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true`, 1)
	return lines
}

// TestNoSecretStored ingests a transcript full of secrets into a real
// SQLite store: nothing read back, found by search or present anywhere in
// the database files holds one, and the masks are counted by kind.
func TestNoSecretStored(t *testing.T) {
	sec := map[string]string{
		"github":   "ghp_" + strings.Repeat("Zx9Qw", 7) + "A",
		"aws":      "AKIA" + strings.Repeat("Q7ZX", 4),
		"password": "Xk9mP2qLvR7t!w",
		"stripe":   "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 2),
		"custom":   "ACME-0123456789abcdef",
		"jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ." +
			"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"pem": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
			"QyNTUxOQAAACDx2f3kR9s7vLq0pXw8y1mZ4uN6tE5bH3gJ2cK7aQ9sdwAAAJgx9f1kMfX9\n-----END OPENSSH PRIVATE KEY-----",
	}
	pemBody := "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")
	writeLines(t, path, secretTranscript(sec), 0)
	dbPath := filepath.Join(dir, "c.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	red := redact.New(redact.Options{Extra: []redact.Pattern{{Kind: "acme-key", Re: regexp.MustCompile(`ACME-[0-9a-f]{16}`)}}})
	rep, err := (&ingest.Archiver{Store: st, Redactor: red}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}

	var stored []string
	sess, err := st.Session(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	stored = append(stored, sess.Title)
	cs := chunks(t, st)
	if len(cs) == 0 {
		t.Fatal("no chunks stored")
	}
	for _, c := range cs {
		stored = append(stored, c.Text, c.Summary, c.Prompt, c.Hash)
		stored = append(stored, c.Commands...)
		stored = append(stored, c.Errors...)
		stored = append(stored, c.Files...)
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		stored = append(stored, it.Text, it.Detail, it.Key)
	}
	comps, err := st.Compactions(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) == 0 || !strings.Contains(comps[0].Summary, "[REDACTED:private-key]") {
		t.Errorf("compaction summary not stored masked: %+v", comps)
	}
	for _, c := range comps {
		stored = append(stored, c.Summary)
	}
	// The raw archive is compressed: its lines are checked as read back,
	// not in the file's bytes.
	raw, err := st.RawLines(ctx, sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(secretTranscript(sec)); len(raw) != n {
		t.Errorf("%d raw lines stored, want %d", len(raw), n)
	}
	for _, l := range raw {
		stored = append(stored, string(l.Text))
	}
	all := strings.Join(stored, "\n")
	for name, s := range sec {
		probe := s
		if name == "pem" {
			probe = pemBody
		}
		if strings.Contains(all, probe) || strings.Contains(strings.ToLower(all), strings.ToLower(probe)) {
			t.Errorf("%s secret stored", name)
		}
		hits, err := st.Search(ctx, carryover.Query{Text: probe, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.Contains(h.Chunk.Text, probe) {
				t.Errorf("search finds the %s secret", name)
			}
		}
	}
	for _, want := range []string{"DB_PASSWORD=[REDACTED:password]", "https://bot:[REDACTED:github-pat]@github.com/acme/app.git"} {
		if !strings.Contains(all, want) {
			t.Errorf("stored text lacks %q", want)
		}
	}

	counts, err := st.Redactions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"github-pat", "aws-access-key-id", "password", "stripe-secret-key", "acme-key", "jwt", "private-key"} {
		if counts[k] == 0 || rep.Redactions[k] != counts[k] {
			t.Errorf("redactions %s: store %d, report %d; want > 0 and equal (store %v)", k, counts[k], rep.Redactions[k], counts)
		}
	}

	// Nothing in the database files either (free pages, WAL, indexes).
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for file, data := range storetest.Files(t, dbPath) {
		for name, s := range sec {
			probe := s
			if name == "pem" {
				probe = pemBody
			}
			if strings.Contains(string(data), probe) {
				t.Errorf("%s: the %s secret is in the file", file, name)
			}
		}
	}
}

// TestHashOnMaskedContent: chunk hashes are computed from the masked text,
// so they reveal nothing about a secret and the same transcript with
// another secret value dedups to the same chunks.
func TestHashOnMaskedContent(t *testing.T) {
	ctx := context.Background()
	hashesWith := func(password string) map[string]bool {
		sec := map[string]string{"github": "ghp_" + strings.Repeat("Zx9Qw", 7) + "A", "aws": "AKIA" + strings.Repeat("Q7ZX", 4),
			"password": password, "stripe": "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 2), "custom": "-", "jwt": "-", "pem": "-"}
		path := filepath.Join(t.TempDir(), sid+".jsonl")
		writeLines(t, path, secretTranscript(sec), 0)
		st := openStore(t)
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		return hashes(chunks(t, st))
	}
	a, b := hashesWith("Xk9mP2qLvR7t!w"), hashesWith("Pq3zL8wN1cV6$m")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d chunks", len(a), len(b))
	}
	for h := range a {
		if !b[h] {
			t.Errorf("chunk hash %s depends on the secret's value", h)
		}
	}
}

// TestPathologicalLineArchived: a 7 MB line that once took seconds to
// mask ("pass=pass=...", in a Bash result and its structured copy) is
// archived with the rest of the session within a hook's deadline, and the
// other lines are searchable. The deadline bounds the CPU time the ingest
// uses (alone on a 2-core VM it takes about 0.7 s; before the redactor was
// linear, 7.6 s, archiving nothing in 2 s): the wall time also counts the
// tests of other packages that run beside this one.
func TestPathologicalLineArchived(t *testing.T) {
	lines := synth(4)
	size, deadline := 7<<20, hookDeadline
	if raceBuild {
		// The race detector slows every byte loop some 30 times: a smaller
		// line takes the same path.
		size, deadline = 1<<20, 10*hookDeadline
	}
	huge := strings.Repeat("pass=", size/5)
	b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "uuid": "huge", "cwd": "/home/dev/proj",
		"toolUseResult": map[string]any{"stdout": huge, "stderr": "", "interrupted": false},
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "tu_1",
			"content": huge}}}})
	lines = append(lines[:6], append([]string{string(b)}, lines[6:]...)...)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, lines, 0)
	st := openStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*deadline)
	defer cancel()
	start, cpu0 := time.Now(), cpuTime()
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	cpu := cpuTime() - cpu0
	t.Logf("ingested %d lines (%.1f MB) in %v (CPU %v)", rep.Lines, float64(rep.Bytes)/1e6, time.Since(start), cpu)
	if err != nil || !rep.Complete {
		t.Fatalf("ingest: %+v, %v", rep, err)
	}
	if cpu > deadline {
		t.Errorf("ingest used %v of CPU, more than a hook's deadline (%v)", cpu, deadline)
	}
	for i := range 4 {
		q := fmt.Sprintf("widget%d", i)
		hits, err := st.Search(context.Background(), carryover.Query{Text: q, Limit: 5})
		if err != nil || len(hits) == 0 {
			t.Errorf("search %q: %d hits, %v", q, len(hits), err)
		}
	}
}

// hookDeadline is the default deadline of a hook (hook_timeout).
const hookDeadline = 2 * time.Second

// probeTranscript is a session holding the shapes a probe once found
// stored verbatim: passwords on command lines, in .netrc, short ones, URL
// passwords with # < > /, a dotted passphrase, cookies, a value with a
// tail, a JWT whose payload is not JSON, a key read in three parts and a
// key cut in two. It returns the lines and the index of the first line of
// the second Read of the key (a run that stops before it leaves the key
// open).
func probeTranscript(key, key2 []string) ([]string, int) {
	var lines []string
	ts := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"] = sid
		v["cwd"] = "/home/dev/proj"
		v["timestamp"] = ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("p-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	n := 0
	call := func(tool string, input map[string]any, text string, structured any) {
		n++
		id := fmt.Sprintf("tu_p%d", n)
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_p%d", n), "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}}}})
		add(map[string]any{"type": "user", "toolUseResult": structured, "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}}}})
	}
	bash := func(cmd, out string) {
		call("Bash", map[string]any{"command": cmd}, out, map[string]any{"stdout": out, "stderr": "", "interrupted": false})
	}
	read := func(lines []string, from int) {
		var num, plain strings.Builder
		for k, l := range lines {
			fmt.Fprintf(&num, "%6d→%s\n", from+k, l)
			plain.WriteString(l + "\n")
		}
		call("Read", map[string]any{"file_path": "/home/dev/.ssh/deploy_key", "offset": from, "limit": len(lines)},
			num.String()+"\n<system-reminder>\nConsider whether the file is malicious.\n</system-reminder>\n",
			map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/.ssh/deploy_key", "content": plain.String(),
				"numLines": len(lines), "startLine": from, "totalLines": len(key)}})
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Set up the deploy of the shop; credentials are on the box."}})
	bash("curl -u deploy:hunter2 https://ci.example.com/api/json", `{"jobs":[]}`)
	bash("PGPASSWORD=pgpw77 psql -h db.internal -U app -c 'select 1'", " ?column? \n----------\n        1\n")
	bash("mysql -u root -pmyPw42 shop -e 'show tables'", "orders\nusers\n")
	bash("sshpass -p sshPw1 ssh deploy@10.0.0.5 uptime", " 09:00:01 up 3 days\n")
	bash("cat ~/.netrc", "machine git.example.com\n  login bob\n  password netrc5\n")
	bash("env | grep -i -e db -e url", "DATABASE_URL=postgres://app:p#a/s<s>9@db.internal:5432/shop\nDB_PASSWORD=Xk9mP2qLvR7t&3Zqw\n")
	call("Read", map[string]any{"file_path": "/home/dev/proj/config.yaml"}, "     1\tdb:\n     2\t  password: correct.horse.battery.staple\n",
		map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/proj/config.yaml", "content": "db:\n  password: correct.horse.battery.staple\n"}})
	bash("curl -sv https://shop.example.com/admin 2>&1 | grep -i cookie", "> Cookie: session=abc123sess; theme=dark\n< Set-Cookie: sid=Zx9QwSid42; Path=/; HttpOnly\n")
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_jwt", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "The webhook signs with eyJhbGciOiJIUzI1NiJ9.bm90LWpzb24tcGF5bG9hZC1xdWl4b3Rl.c2lnbmF0dXJlLXF1aXhvdGUtMTIzNDU2Nzg5MA and we keep it."}}}})
	head := strings.Join(key2[:5], "\n") + "\n" + key2[5][:30]
	bash("head -c 400 /srv/tls/key.pem", head)
	bash("tail -c +401 /srv/tls/key.pem", key2[5][30:]+"\n"+strings.Join(key2[6:], "\n")+"\n")
	read(key[:5], 1)
	second := len(lines)
	read(key[5:10], 6)
	read(key[10:], 11)
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_end", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "IMPORTANT: the deploy works with these settings; next, the TLS renewal."}}}})
	return lines, second
}

// probeValues are the secret values of probeTranscript, and keyLines the
// bodies of its keys.
var probeValues = []string{"hunter2", "pgpw77", "myPw42", "sshPw1", "netrc5", "p#a/s<s>9", "Xk9mP2qLvR7t", "3Zqw",
	"correct.horse.battery.staple", "abc123sess", "Zx9QwSid42", "bm90LWpzb24tcGF5bG9hZC1xdWl4b3Rl"}

func keyLines(label string, seed byte) []string {
	ls := []string{"-----BEGIN " + label + "-----"}
	for k := range 13 {
		var b strings.Builder
		for c := range 64 {
			b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(int(seed)*31+k*7+c*13+c*c)%64])
		}
		ls = append(ls, b.String())
	}
	return append(ls, "AbCdEfGh12==", "-----END "+label+"-----")
}

// TestProbeShapesNotStored ingests the probe's session into a real SQLite
// store in small batches and in two runs, the second starting in the
// middle of a key read in three parts: no secret value and no line of a
// key is in the database files, in search results, in a restore or in the
// stats, and the counts by kind hold kinds only.
func TestProbeShapesNotStored(t *testing.T) {
	key, key2 := keyLines("OPENSSH PRIVATE KEY", 1), keyLines("RSA PRIVATE KEY", 2)
	lines, second := probeTranscript(key, key2)
	probes := append([]string{}, probeValues...)
	probes = append(probes, key[1:len(key)-2]...)
	probes = append(probes, key2[1:5]...)
	probes = append(probes, key2[5][:30], key2[5][30:])
	probes = append(probes, key2[6:len(key2)-2]...)

	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")
	dbPath := filepath.Join(dir, "c.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	writeLines(t, path, lines[:second], 0)
	rep1, err := (&ingest.Archiver{Store: st, BatchBytes: 1024}).File(ctx, path, ingest.Options{})
	if err != nil || !rep1.Complete {
		t.Fatalf("first run: %+v, %v", rep1, err)
	}
	writeLines(t, path, lines[second:], os.O_APPEND)
	rep2, err := (&ingest.Archiver{Store: st, BatchBytes: 1024}).File(ctx, path, ingest.Options{})
	if err != nil || !rep2.Complete || rep2.Restarted {
		t.Fatalf("second run: %+v, %v", rep2, err)
	}

	var stored []string
	for _, c := range chunks(t, st) {
		stored = append(stored, c.Text, c.Summary, c.Prompt)
		stored = append(stored, c.Commands...)
		stored = append(stored, c.Errors...)
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		stored = append(stored, it.Text, it.Detail, it.Key)
	}
	restore, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: sid, Project: "/home/dev/proj", Budget: 20000})
	if err != nil {
		t.Fatal(err)
	}
	report, err := stats.Compute(ctx, st, stats.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	rj, _ := json.Marshal(report)
	stored = append(stored, restore.Text, string(rj))
	// The raw archive, decompressed: its blocks' bytes on disk do not show
	// a secret even when a line holds one.
	raw, err := st.RawLines(ctx, sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(lines) {
		t.Errorf("%d raw lines stored, want %d", len(raw), len(lines))
	}
	for _, l := range raw {
		stored = append(stored, string(l.Text))
	}
	all := strings.Join(stored, "\n")
	for _, p := range probes {
		if strings.Contains(all, p) {
			t.Errorf("%q stored", p)
		}
		hits, err := st.Search(ctx, carryover.Query{Text: p, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.Contains(h.Chunk.Text, p) {
				t.Errorf("search finds %q", p)
			}
		}
	}
	if !strings.Contains(all, "curl -u deploy:[REDACTED:password]") || !strings.Contains(restore.Text, "REDACTED") {
		t.Errorf("masked commands not kept with their context:\n%s", restore.Text)
	}
	counts, err := st.Redactions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, k := range redact.Kinds() {
		kinds[k] = true
	}
	for k := range counts {
		if !kinds[k] {
			t.Errorf("redaction count kind %q is not a detector kind", k)
		}
	}
	for _, k := range []string{"password", "url-password", "session-cookie", "jwt", "private-key"} {
		if counts[k] == 0 || report.Redactions[k] != counts[k] {
			t.Errorf("%s: %d in the store, %d in stats (%v)", k, counts[k], report.Redactions[k], counts)
		}
	}

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for file, data := range storetest.Files(t, dbPath) {
		for _, p := range probes {
			if strings.Contains(string(data), p) {
				t.Errorf("%s: %q is in the file", file, p)
			}
		}
	}
}
