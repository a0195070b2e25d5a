package main

import (
	_ "embed"
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpText documents every command (see its head for the format). It is
// text, not code, so that help reads as it prints.
//
//go:embed help.txt
var helpText string

// cmdHelp is one command's entry in help.txt.
type cmdHelp struct {
	name, args, summary, about string
	examples                   []string
}

// commandHelp parses help.txt, in its order.
func commandHelp() []cmdHelp {
	var out []cmdHelp
	for _, block := range strings.Split(helpText, "\n## ")[1:] {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		name, args, _ := strings.Cut(lines[0], " ")
		h := cmdHelp{name: name, args: args}
		if len(lines) > 1 {
			h.summary = lines[1]
		}
		inExamples := false
		for _, l := range lines[2:] {
			switch {
			case l == "Examples:":
				inExamples = true
			case inExamples:
				h.examples = append(h.examples, strings.TrimSpace(l))
			default:
				h.about = strings.TrimSpace(h.about + " " + l)
			}
		}
		out = append(out, h)
	}
	return out
}

// lookupHelp finds a command's entry; "bench latency" finds bench's.
func lookupHelp(name string) (cmdHelp, bool) {
	first, _, _ := strings.Cut(name, " ")
	for _, h := range commandHelp() {
		if h.name == name || h.name == first {
			return h, true
		}
	}
	return cmdHelp{}, false
}

// noFlagSet are the commands that parse no flags of their own: their help
// is printed before they run.
func noFlagSet(cmd string) bool {
	return cmd == "hook" || cmd == "version" || cmd == "help" || cmd == "bench"
}

func isHelpArg(s string) bool {
	return s == "-h" || s == "-help" || s == "--help"
}

// writeUsage prints the overview 'carryover help' shows.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "carryover keeps what Claude Code's compaction forgets.\n\nUsage: carryover [--db PATH] <command> [arguments]\n\nCommands:\n")
	for _, h := range commandHelp() {
		left := strings.Join(strings.Fields(h.name+" "+strings.Replace(h.args, "[flags]", "", 1)), " ")
		if len(left) > 20 {
			fmt.Fprintf(w, "  %s\n  %-20s %s\n", left, "", h.summary)
			continue
		}
		fmt.Fprintf(w, "  %-20s %s\n", left, h.summary)
	}
	fmt.Fprint(w, `
Global flags:
  --db PATH      the SQLite store (env CARRYOVER_DB; default $XDG_DATA_HOME/carryover/carryover.db);
                 with database_url (env CARRYOVER_DATABASE_URL) set, the PostgreSQL server is used instead
                 and this file is the hooks' spool while the server is unreachable; --db forces the file
  --version, -v  print the version

'carryover help COMMAND' or 'carryover COMMAND --help' explains a command.
`)
}

// writeHelp prints one command's help: usage line, description, its
// flags with their defaults (fs may be nil), examples. name is what was
// run ("search", "bench latency").
func writeHelp(w io.Writer, name string, fs *flag.FlagSet) {
	h, ok := lookupHelp(name)
	args := h.args
	if name != h.name {
		args = "[flags]" // a bench's own flags
	}
	fmt.Fprintf(w, "Usage: carryover %s\n", strings.TrimSpace(name+" "+args))
	if !ok {
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrap(h.about, 78, ""))
	var flags []*flag.Flag
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	}
	if len(flags) > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		for _, f := range flags {
			left := "--" + f.Name
			if len(f.Name) == 1 {
				left = "-" + f.Name
			}
			if v, _ := flag.UnquoteUsage(f); v != "" {
				left += " " + valueName(f.Name, v)
			}
			text := f.Usage
			// --db's default is whatever the global --db said.
			if !zeroDefault(f.DefValue) && f.Name != "db" {
				text += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(w, "  %-22s %s\n", left, wrap(text, 54, strings.Repeat(" ", 25)))
		}
	}
	if len(h.examples) > 0 {
		fmt.Fprint(w, "\nExamples:\n")
		for _, e := range h.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// valueName is the placeholder of a flag's value in help: N for numbers,
// the flag's name for a string (--kind KIND) but for the common ones.
func valueName(name, kind string) string {
	switch name {
	case "db", "o", "dir", "items", "data", "audit", "exe", "cpuprofile", "transcript", "transcripts", "measure-db":
		return "PATH"
	case "project":
		return "DIR"
	case "session":
		return "ID"
	case "wrap", "compare":
		return "CMD"
	}
	switch kind {
	case "int", "uint", "float":
		return "N"
	case "duration":
		return "DURATION"
	case "string":
		if len(name) > 1 {
			return strings.ToUpper(name)
		}
	}
	return "VALUE"
}

func zeroDefault(v string) bool {
	return v == "" || v == "0" || v == "false" || v == "0s"
}

// wrap breaks text into lines of at most width columns, every line after
// the first starting with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// suggest returns the candidate closest to word, when it is close enough
// to be a typo (an edit or two, or a unique prefix), else "".
func suggest(word string, candidates []string) string {
	best, bestDist := "", 3
	var prefixed []string
	for _, c := range candidates {
		if len(word) >= 2 && strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
		if d := editDistance(word, c); d < bestDist && d <= max(1, len(c)/3) {
			best, bestDist = c, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// editDistance is the Levenshtein distance, a transposition counting one.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// flagHint says which flag an unknown one was likely meant to be.
func flagHint(fs *flag.FlagSet, msg string) string {
	const unknown = "flag provided but not defined: "
	bad, ok := strings.CutPrefix(msg, unknown)
	if !ok {
		return msg
	}
	bad = strings.TrimLeft(bad, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := suggest(bad, names); s != "" {
		return fmt.Sprintf("unknown flag --%s; did you mean --%s?", bad, s)
	}
	return "unknown flag --" + bad
}
