package oracle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/redact/redacttest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

const sid = "0b7c1f5e-28aa-4c2e-9d57-5a1c2b3d4e5f"

// planted is a text of the corpus: a secret's text and the parts that
// must be gone, or a look-alike (no parts) that must stay whole.
type planted struct {
	kind  string
	texts []string // the texts of one tool call: command, then outputs
	parts []string
}

func corpus() (secrets, lookalikes []planted) {
	r := rand.New(rand.NewPCG(28, 1))
	texts, want := redacttest.PlantAll(r)
	for i, text := range texts {
		secrets = append(secrets, planted{kind: want[i].Kind, texts: []string{text}, parts: want[i].Parts})
	}
	for _, s := range redacttest.RoundTwo(r) {
		secrets = append(secrets, planted{kind: s.Kind, texts: []string{s.Text}, parts: s.Parts})
	}
	for _, c := range redacttest.Carried(r) {
		secrets = append(secrets, planted{kind: c.Kind, texts: c.Texts, parts: c.Parts})
	}
	for _, l := range append(redacttest.Lookalikes(r), redacttest.RoundTwoLookalikes(r)...) {
		lookalikes = append(lookalikes, planted{kind: "look-alike", texts: []string{l}})
	}
	return secrets, lookalikes
}

// transcript writes the corpus as a session: each planted text is a Bash
// call whose command is its first text and whose result is the rest (or
// the text again).
func transcript(ps []planted) []string {
	var lines []string
	ts := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"], v["cwd"], v["timestamp"], v["uuid"] = sid, "/home/dev/proj", ts.Format(time.RFC3339Nano), fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "set up the deployment and its credentials"}})
	for n, p := range ps {
		id := fmt.Sprintf("toolu_%04d", n)
		// A carried shape: the command, its description, then its output.
		cmd, desc, out := p.texts[0], "run step "+fmt.Sprint(n), p.texts[len(p.texts)-1]
		if len(p.texts) > 2 {
			desc = strings.Join(p.texts[1:len(p.texts)-1], " ")
		}
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd, "description": desc}}}}})
		add(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false},
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": false}}}})
	}
	return lines
}

// TestGitleaksOracle: every secret of the corpus that gitleaks finds in
// its input is absent from what carryover stored (chunks, items, raw
// lines, the database's files), what search and restore return, what an
// export holds and what importing that export stores, and from a log
// record quoting it. Where gitleaks flags a look-alike, the corpus's label
// wins: the look-alike's line is stored unchanged.
func TestGitleaksOracle(t *testing.T) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	secrets, lookalikes := corpus()

	// The oracle: the planted parts gitleaks finds, or that overlap what
	// it finds. A finding elsewhere in a text (a certificate, a context's
	// own words) is not a corpus secret.
	var must []string
	found, tried := 0, 0
	kinds := map[string]int{}
	for _, p := range secrets {
		tried++
		hit := false
		for _, text := range p.texts {
			for _, f := range d.DetectString(text) {
				for _, part := range p.parts {
					if len(part) >= 4 && (strings.Contains(f.Secret, part) || strings.Contains(part, f.Secret) && len(f.Secret) >= 8) {
						must = append(must, part)
						hit = true
					}
				}
			}
		}
		if hit {
			found++
			kinds[p.kind]++
		}
	}
	flagged := 0
	for _, l := range lookalikes {
		if len(d.DetectString(l.texts[0])) > 0 {
			flagged++
		}
	}
	t.Logf("gitleaks finds %d of %d planted secrets (%d kinds); it flags %d of %d look-alikes, which the corpus keeps",
		found, tried, len(kinds), flagged, len(lookalikes))
	if found < tried/2 {
		t.Fatalf("gitleaks found %d of %d: the oracle is not looking", found, tried)
	}

	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")
	lines := transcript(append(append([]planted{}, secrets...), lookalikes...))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "c.db")
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil || !rep.Complete {
		t.Fatalf("ingest: %+v, %v", rep, err)
	}

	stored := storedTexts(t, st)
	raw, err := st.RawLines(ctx, sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(lines) {
		t.Fatalf("%d raw lines stored, want %d", len(raw), len(lines))
	}
	// A look-alike's lines (its call and its result) are stored as they
	// were written.
	first := 1 + 2*len(secrets)
	kept := 0
	for k := range lookalikes {
		call, res := first+2*k, first+2*k+1
		if string(raw[call].Text) == lines[call] && string(raw[res].Text) == lines[res] {
			kept++
		} else {
			t.Errorf("look-alike masked: %q", lookalikes[k].texts[0])
		}
	}

	var exp bytes.Buffer
	sess, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exportfile.Write(ctx, &exp, st, exportfile.WriteOptions{Sessions: sess}); err != nil {
		t.Fatal(err)
	}
	var hdr exportfile.Header
	if err := json.NewDecoder(bytes.NewReader(exp.Bytes())).Decode(&hdr); err != nil || !hdr.Redacted {
		t.Fatalf("export header %+v, %v", hdr, err)
	}
	st2, err := sqlite.Open(ctx, filepath.Join(dir, "imported.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if _, err := exportfile.Read(ctx, bytes.NewReader(exp.Bytes()), st2, exportfile.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	imported := storedTexts(t, st2)

	var logBuf bytes.Buffer
	log := slog.New(redact.LogHandler{Next: slog.NewTextHandler(&logBuf, nil), Redactor: redact.New(redact.Options{})})
	for _, p := range secrets {
		log.Error("hook failed", "input", strings.Join(p.texts, "\n"))
	}

	where := map[string]string{"store": stored, "export": exp.String(), "import": imported, "log": logBuf.String()}
	for name, data := range storetest.Files(t, dbPath) {
		where["file "+filepath.Base(name)] = string(data)
	}
	// The corpus's own labels go further than the oracle: every planted
	// part must be gone as well.
	var all []string
	for _, p := range secrets {
		for _, part := range p.parts {
			if len(part) >= 4 {
				all = append(all, part)
			}
		}
	}
	leaked := map[string]bool{}
	for _, part := range append(must, all...) {
		for name, text := range where {
			if strings.Contains(text, part) && !leaked[name+part] {
				leaked[name+part] = true
				t.Errorf("%s holds %q", name, part)
			}
		}
	}
	// Search: each secret the oracle found, looked up, returns no chunk
	// holding it.
	for _, part := range must[:min(len(must), 200)] {
		hits, err := st.Search(ctx, carryover.Query{Text: part, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.Contains(h.Chunk.Text, part) {
				t.Errorf("search finds %q", part)
			}
		}
	}
	t.Logf("%d oracle secrets and %d planted parts checked in %d places and by search: %d stored; %d of %d look-alikes kept",
		len(must), len(all), len(where), len(leaked), kept, len(lookalikes))
}

// storedTexts returns what a store holds of the session, as one text:
// chunks, items, restore and raw lines.
func storedTexts(t *testing.T, st carryover.Store) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no chunks stored")
	}
	for _, c := range cs {
		for _, s := range append([]string{c.Text, c.Summary, c.Prompt}, append(c.Commands, c.Errors...)...) {
			b.WriteString(s + "\n")
		}
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		b.WriteString(it.Text + "\n" + it.Detail + "\n" + it.Key + "\n")
	}
	res, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: sid, Project: "/home/dev/proj", Budget: 200000})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(res.Text + "\n")
	raw, err := st.RawLines(ctx, sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range raw {
		// Decoded too: a JSON escape must not hide a secret from the check.
		var v any
		if json.Unmarshal(l.Text, &v) == nil {
			dec, _ := json.Marshal(v)
			b.Write(bytes.ReplaceAll(dec, []byte(`\n`), []byte("\n")))
		}
		b.Write(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
