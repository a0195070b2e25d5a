// Package cmdhelp renders the CLI's help in one format for every command
// (usage line, a paragraph, the flags with their defaults, examples) from
// a text that documents the commands, and finds what a mistyped command
// or flag was likely meant to be.
package cmdhelp

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
)

// Command is one command's entry in the help text.
type Command struct {
	Name, Args, Summary, About string
	Examples                   []string
}

// Parse reads the help text: entries that start with a line "## NAME
// ARGUMENTS", then a one-line summary, a paragraph (any number of lines),
// "Examples:" and example command lines. What comes before the first
// entry is a comment.
func Parse(text string) []Command {
	var out []Command
	for _, block := range strings.Split(text, "\n## ")[1:] {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		name, args, _ := strings.Cut(lines[0], " ")
		c := Command{Name: name, Args: args}
		if len(lines) > 1 {
			c.Summary = lines[1]
		}
		inExamples := false
		for _, l := range lines[2:] {
			switch {
			case l == "Examples:":
				inExamples = true
			case inExamples:
				c.Examples = append(c.Examples, strings.TrimSpace(l))
			default:
				c.About = strings.TrimSpace(c.About + " " + l)
			}
		}
		out = append(out, c)
	}
	return out
}

// Lookup finds a command's entry; "bench latency" finds bench's.
func Lookup(cmds []Command, name string) (Command, bool) {
	first, _, _ := strings.Cut(name, " ")
	for _, c := range cmds {
		if c.Name == name || c.Name == first {
			return c, true
		}
	}
	return Command{}, false
}

// Names lists the commands' names.
func Names(cmds []Command) []string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return names
}

// WriteList prints the commands with their summaries, one a line.
func WriteList(w io.Writer, cmds []Command) {
	for _, c := range cmds {
		left := strings.Join(strings.Fields(c.Name+" "+strings.Replace(c.Args, "[flags]", "", 1)), " ")
		if len(left) > 20 {
			fmt.Fprintf(w, "  %s\n  %-20s %s\n", left, "", c.Summary)
			continue
		}
		fmt.Fprintf(w, "  %-20s %s\n", left, c.Summary)
	}
}

// Write prints the help of the command run as name ("search", "bench
// latency"): its usage line, description, the flags of fs (nil: none)
// with their defaults, and examples. program names the binary.
func Write(w io.Writer, cmds []Command, program, name string, fs *flag.FlagSet) {
	c, ok := Lookup(cmds, name)
	args := c.Args
	if name != c.Name {
		args = "[flags]" // a subcommand's own flags
	}
	fmt.Fprintf(w, "Usage: %s %s\n", program, strings.TrimSpace(name+" "+args))
	if !ok {
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrap(c.About, 78, ""))
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
			// --db's default is whatever the global --db said; a usage that
			// says what the default means (a -1 that stands for "all") is
			// not followed by the bare value.
			if !zeroDefault(f.DefValue) && f.Name != "db" && !strings.Contains(text, "(default") {
				text += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(w, "  %-22s %s\n", left, wrap(text, 54, strings.Repeat(" ", 25)))
		}
	}
	if len(c.Examples) > 0 {
		fmt.Fprint(w, "\nExamples:\n")
		for _, e := range c.Examples {
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

// Suggest returns the candidate closest to word, when it is close enough
// to be a typo (an edit or two, or a unique prefix), else "".
func Suggest(word string, candidates []string) string {
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

// FlagHint rewrites package flag's parse errors for people: an unknown
// flag with the flag it was likely meant to be, a bad value with what the
// flag wants, a missing value; flags named as they are typed (-n, --limit).
func FlagHint(fs *flag.FlagSet, msg string) string {
	if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		bad = strings.TrimLeft(bad, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := Suggest(bad, names); s != "" {
			return fmt.Sprintf("unknown flag %s; did you mean %s?", Dashed(bad), Dashed(s))
		}
		return "unknown flag " + Dashed(bad)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		return fmt.Sprintf("%s needs a value: %s VALUE", Dashed(name), Dashed(name))
	}
	// invalid value "abc" for flag -limit: parse error
	// invalid boolean value "x" for -json: parse error
	var value, name, why string
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		value, rest, _ = strings.Cut(rest, " for flag -")
		name, why, _ = strings.Cut(rest, ": ")
	} else if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		value, rest, _ = strings.Cut(rest, " for -")
		name, _, _ = strings.Cut(rest, ": ")
		return fmt.Sprintf("%s takes no value, or %s=true|false, not %s", Dashed(name), Dashed(name), value)
	} else {
		return msg
	}
	f := fs.Lookup(name)
	if f == nil {
		return msg
	}
	want := ""
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			want = "a whole number"
		case float64:
			want = "a number"
		case time.Duration:
			want = "a duration such as 30s, 5m or 2h"
		}
	}
	switch {
	case want != "" && strings.Contains(why, "out of range"):
		return fmt.Sprintf("%s: %s is out of range", Dashed(name), value)
	case want != "":
		return fmt.Sprintf("%s wants %s, not %s", Dashed(name), want, value)
	}
	return fmt.Sprintf("%s %s: %s", Dashed(name), value, why)
}

// Dashed is a flag's name as it is typed: -n for one letter, else --name.
func Dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Bold marks the query's words (two characters or more, any case) in
// text with the terminal's bold on and off.
func Bold(text, query string) string {
	lower := strings.ToLower(text)
	marks := make([]bool, len(text)+1)
	for _, word := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len(word) < 2 {
			continue
		}
		for i := 0; ; {
			j := strings.Index(lower[i:], word)
			if j < 0 || len(lower) != len(text) {
				break
			}
			for k := i + j; k < i+j+len(word); k++ {
				marks[k] = true
			}
			i += j + len(word)
		}
	}
	var b strings.Builder
	on := false
	for i := 0; i <= len(text); i++ {
		if marks[i] != on {
			on = marks[i]
			if on {
				b.WriteString("\x1b[1m")
			} else {
				b.WriteString("\x1b[22m")
			}
		}
		if i < len(text) {
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

// Confirmed reports whether an answer to a yes/no prompt is yes: y or yes
// in any case, with spaces around. Anything else (n, no, nothing) is no.
func Confirmed(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true
	}
	return false
}
