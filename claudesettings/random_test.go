package claudesettings

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRandomDocuments checks the fuzz property on generated settings files:
// random mixes of other tools' hooks, older carryover entries, empty
// containers, odd matchers and every layout. Byte-level fuzzing rarely
// builds such structures; this does, deterministically.
func TestRandomDocuments(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 42))
		g := gen{r: r, layout: r.IntN(6)}
		data := g.doc()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := fileFrom([]byte(data), state{}); err != nil {
				t.Fatalf("generated an invalid file: %v\n%s", err, data)
			}
			checkRoundTrip(t, []byte(data), i%2 == 0)
		})
	}
}

type gen struct {
	r      *rand.Rand
	layout int // 0 minified, 1 two spaces, 2 four, 3 tabs, 4 CRLF, 5 random
}

func (g gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// ws is the whitespace before a token at depth d.
func (g gen) ws(d int) string {
	switch g.layout {
	case 0:
		return ""
	case 1:
		return "\n" + strings.Repeat("  ", d)
	case 2:
		return "\n" + strings.Repeat("    ", d)
	case 3:
		return "\n" + strings.Repeat("\t", d)
	case 4:
		return "\r\n" + strings.Repeat("  ", d)
	}
	return g.pick("", " ", "\n", "\n  ", "\t", " \n ", "\r\n")
}

// obj and arr lay out members at depth d.
func (g gen) obj(d int, members []string) string {
	if len(members) == 0 {
		return g.pick("{}", "{ }", "{"+g.ws(d)+"}")
	}
	var b strings.Builder
	b.WriteString("{")
	for i, m := range members {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(g.ws(d+1) + m)
	}
	return b.String() + g.ws(d) + "}"
}

func (g gen) arr(d int, elems []string) string {
	if len(elems) == 0 {
		return g.pick("[]", "[ ]", "["+g.ws(d)+"]")
	}
	var b strings.Builder
	b.WriteString("[")
	for i, e := range elems {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(g.ws(d+1) + e)
	}
	return b.String() + g.ws(d) + "]"
}

func (g gen) kv(k, v string) string {
	sep := ": "
	if g.layout == 0 {
		sep = ":"
	}
	return quote(k) + sep + v
}

func (g gen) doc() string {
	var members []string
	if g.r.IntN(3) == 0 {
		members = append(members, g.kv("model", `"opus"`))
	}
	if g.r.IntN(5) > 0 {
		members = append(members, g.kv("hooks", g.hooks(1)))
	}
	if g.r.IntN(3) == 0 {
		members = append(members, g.kv("env", g.obj(1, []string{g.kv("A", `"\u00e9"`)})))
	}
	g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return g.pick("", " ", "\n") + g.obj(0, members) + g.pick("", "\n", "\r\n", "\n\n")
}

func (g gen) hooks(d int) string {
	events := []string{"PreCompact", "SessionStart", "Stop", "SessionEnd", "UserPromptSubmit", "PostCompact", "PostToolUse", "Notification"}
	var members []string
	for _, e := range events {
		if g.r.IntN(3) == 0 {
			var groups []string
			for range g.r.IntN(4) {
				groups = append(groups, g.group(d+2))
			}
			members = append(members, g.kv(e, g.arr(d+1, groups)))
		}
	}
	return g.obj(d, members)
}

func (g gen) group(d int) string {
	var members []string
	switch g.r.IntN(9) {
	case 0, 1:
	case 2:
		members = append(members, g.kv("matcher", "7"))
	default:
		members = append(members, g.kv("matcher", quote(g.pick("*", "", "manual", "auto", "compact", "resume", "startup", "Bash"))))
	}
	var hooks []string
	for range g.r.IntN(4) {
		hooks = append(hooks, g.entry(d+2))
	}
	members = append(members, g.kv("hooks", g.arr(d+1, hooks)))
	if g.r.IntN(4) == 0 {
		members = append(members, g.kv("note", `"x"`))
	}
	return g.obj(d, members)
}

func (g gen) entry(d int) string {
	cmd := g.pick("echo hi", "carryover-sync hook stop", "/bin/carryover ingest",
		"carryover hook stop", "/old/bin/carryover hook pre-compact", "'/a b/carryover' hook session-start",
		"/usr/local/bin/carryover hook user-prompt-submit")
	members := []string{g.kv("type", `"command"`), g.kv("command", quote(cmd))}
	switch g.r.IntN(4) {
	case 0:
		members = append(members, g.kv("timeout", g.pick("5", "30", "2.0", `"10"`)))
	case 1:
		members = members[1:]
	}
	return g.obj(d, members)
}
