package chunk

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// Limits of value extraction: a value item is one short line per call.
const (
	maxValues    = 6   // values kept from one call
	valueCap     = 90  // bytes of one value
	valueScan    = 400 // lines of written content scanned
	valueItemCap = 300 // bytes of a value item's text
)

// minName is the shortest defined name worth a value: shorter ones are
// generic (up, down, init, main).
const minName = 5

// maxDefIndent is the deepest indentation of a definition worth a value:
// top level or a member of a module or class.
const maxDefIndent = 4

// valueSep joins the values of one call in an item's text; a restore splits
// on it to drop the values a summary already quotes.
const valueSep = " · "

var (
	// A setting: key, then ":", "=" or "=>", then a value on the same line
	// (YAML, TOML, INI, .env, JSON, Elixir/Ruby keywords, CSS properties).
	settingRE = lazyRegexp(`^["']?(--?[A-Za-z_][\w.-]*|[A-Za-z_][\w.-]*)["']?(?::\s*|\s*=>\s*|\s*=\s*)(\S.*)$`)
	// A definition: a keyword that introduces a name, across languages.
	defRE = lazyRegexp(`^(?:export\s+|pub(?:\(crate\))?\s+|public\s+|private\s+|static\s+|async\s+|default\s+)*` +
		`(?:def|defp|defmodule|defmacro|func|function|fn|class|struct|interface|enum|trait|type|const|module|impl)\s+` +
		`(?:\([^)]*\)\s*)?([A-Za-z_][\w.!?]*)`)
	// An index or table created in SQL or a migration DSL.
	sqlNameRE = lazyRegexp(`(?i)\bcreate\s+(?:unique\s+)?(?:index|table|view|trigger)\s+(?:if\s+not\s+exists\s+)?["'\x60]?([A-Za-z_][\w.]*)`)
	// A name given as a keyword argument: name: "x", name="x", :name => "x".
	namedRE = lazyRegexp(`\b(?:name|index_name|table_name)\s*(?::|=>|=)\s*["']([A-Za-z_][\w.-]{3,})["']`)
	// A string literal.
	quotedRE = lazyRegexp(`"((?:[^"\\]|\\.){6,120})"|'((?:[^'\\]|\\.){6,120})'`)
	// The line git prints for a new commit: "[branch 1a2b3c4] subject".
	commitRE = lazyRegexp(`(?m)^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$`)
	// A test run's tally at the start of a line: "59 tests, 0 failures",
	// "Tests: 3 passed, 3 total", "===== 5 passed in 0.12s =====".
	tallyRE = lazyRegexp(`(?m)^[\s=*-]*(?:Tests?:\s*)?(\d+ (?:tests?|examples?|specs?|passed|passing)(?:,? \d+ \w+)*)(?:[ (]|$)`)
	// An id a tool reports for later use: "agentId: a2898e3".
	reportedIDRE = lazyRegexp(`(?m)\b(agentId|task_id|taskId|run_id|job_id|session_id|id): ([A-Za-z0-9][\w-]{5,})\b`)
)

// lazyRegexp compiles expr on first use: compiling these at start-up cost
// every hook process about 2.5 ms, and most hooks chunk nothing.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// configFile reports whether a file holds settings: a config format, or a
// file under a config directory or named for its settings.
func configFile(file string) bool {
	base := strings.ToLower(path.Base(file))
	switch path.Ext(base) {
	case ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env", ".properties", ".json", ".css", ".scss":
		return true
	}
	if strings.HasPrefix(base, ".env") || strings.Contains(base, "config") || strings.Contains(base, "settings") {
		return true
	}
	for _, d := range strings.Split(path.Dir(file), "/") {
		if d == "config" || d == "conf" || d == "settings" {
			return true
		}
	}
	return false
}

// editValues returns the values an edit introduces: settings written to a
// config file, names it defines and UI strings it adds. Only lines of new
// that old does not hold count, so an edit that moves code reports nothing.
func editValues(file, old, new string) []string {
	had := map[string]bool{}
	for l := range strings.Lines(old) {
		had[strings.TrimSpace(l)] = true
	}
	cfg := configFile(file)
	var settings, names, texts []string
	n := 0
	for l := range strings.Lines(new) {
		if n++; n > valueScan {
			break
		}
		l = strings.TrimRight(l, " \t\r\n")
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		l = strings.TrimSpace(l)
		if l == "" || had[l] || len(l) > 200 {
			continue
		}
		if cfg {
			if v := setting(l); v != "" {
				settings = append(settings, v)
				continue
			}
		}
		// Deeper definitions are locals and closures, not part of an API.
		if indent <= maxDefIndent && mayDefine(l) {
			if m := defRE().FindStringSubmatch(l); m != nil && len(m[1]) >= minName {
				names = append(names, m[1])
			}
		}
		if containsFold(l, "create") {
			if m := sqlNameRE().FindStringSubmatch(l); m != nil {
				names = append(names, m[1])
			}
		}
		if strings.Contains(l, "name") {
			for _, m := range namedRE().FindAllStringSubmatch(l, -1) {
				names = append(names, m[1])
			}
		}
		texts = append(texts, uiTexts(l)...)
	}
	var out []string
	for _, group := range [][]string{settings, names, texts} {
		for _, v := range group {
			out = addValue(out, v)
		}
	}
	return out
}

// setting returns a config line as "key: value" when it sets a key to a
// scalar-ish value; "" for lines that open a block or hold no value.
func setting(l string) string {
	l = strings.TrimSuffix(strings.TrimSuffix(l, ","), ";")
	m := settingRE().FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	v := strings.TrimSpace(m[2])
	switch v {
	case "", "{", "[", "(", "do", "|", ">", "[{":
		return ""
	}
	return l
}

// uiTexts returns the string literals and markup text of a line that read
// like text for people: a capital letter, then at least two words.
func uiTexts(l string) []string {
	var out []string
	if quotesCapital(l) {
		for _, m := range quotedRE().FindAllStringSubmatch(l, -1) {
			if s := m[1] + m[2]; humanText(s) {
				out = append(out, s)
			}
		}
	}
	// A line of prose inside markup (between tags).
	if !strings.ContainsAny(l, `<>{}()=;"'`+"`") && humanText(l) && strings.ContainsAny(l[len(l)-1:], ".!?:") {
		out = append(out, l)
	}
	return out
}

// humanText reports whether s reads like words for a person rather than
// code: it starts with a capital letter and has two words or more of
// letters.
func humanText(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || strings.Contains(s, "\\n") {
		return false
	}
	w := 0
	for f := range strings.FieldsSeq(s) {
		if isLetter(f[0]) {
			w++
		}
	}
	return w >= 2
}

// outputValues returns what a command's output reports that a later step
// may need: the commits it created and the test tally.
func outputValues(out string) []string {
	// Both expressions match from a line start, the same at any line
	// start; each search starts at the first line that may hold a match.
	var vs []string
	if at := commitStart(out); at >= 0 {
		for _, m := range commitRE().FindAllStringSubmatch(out[at:], maxValues) {
			vs = addValue(vs, "commit "+m[2]+" ("+m[1]+"): "+m[3])
		}
	}
	if at := tallyStart(out); at >= 0 {
		if ms := tallyRE().FindAllStringSubmatch(out[at:], -1); len(ms) > 0 {
			vs = addValue(vs, ms[len(ms)-1][1]) // the final tally
		}
	}
	return vs
}

// reportedIDs returns the ids a tool's result names for later use, such as
// the id to resume a subagent with.
func reportedIDs(out string) []string {
	// A match holds "id: " or "Id: ", at most 8 bytes after its start
	// ("session_id: "): none starts before k. A subagent's result names
	// its id at the end, after all its text, which the expression, having
	// no literal prefix, would otherwise walk position by position.
	c := strings.Index(out, "id: ")
	if i := strings.Index(out, "Id: "); i >= 0 && (c < 0 || i < c) {
		c = i
	}
	if c < 0 {
		return nil
	}
	k := max(c-8, 0)
	for k > 0 && isWordByte(out[k-1]) {
		k-- // \b at k must see the byte before it, as in out
	}
	var vs []string
	for _, m := range reportedIDRE().FindAllStringSubmatch(out[k:], maxValues) {
		vs = addValue(vs, m[1]+": "+m[2])
	}
	return vs
}

// isWordByte reports whether c is an ASCII word character, as \b sees it.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// The regular expressions above are slow next to a substring search, and
// most lines and outputs cannot match them. The checks below hold for
// every text a regular expression matches (values_test.go checks that),
// so they decide when it is worth running.

// defStarts are the words a line matched by defRE can start with (a
// modifier or the keyword; "def" covers "default" and "defp", "pub"
// covers "public", "func" covers "function").
var defStarts = []string{"export", "pub", "private", "static", "async", "def", "func", "fn", "class", "struct",
	"interface", "enum", "trait", "type", "const", "module", "impl"}

// mayDefine reports whether defRE may match l.
func mayDefine(l string) bool {
	if l == "" || l[0] < 'a' || l[0] > 'z' {
		return false
	}
	for _, w := range defStarts {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds word (lower-case ASCII letters
// without k or s, which alone among ASCII letters fold to non-ASCII ones)
// in any case, as (?i) matches it.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// quotesCapital reports whether a quote in l is followed by a capital
// letter: the only matches of quotedRE that uiTexts keeps start so.
func quotesCapital(l string) bool {
	for i := 0; i+1 < len(l); i++ {
		if (l[i] == '"' || l[i] == '\'') && l[i+1] >= 'A' && l[i+1] <= 'Z' {
			return true
		}
	}
	return false
}

// commitStart returns where the first line starting with '[' starts, or
// -1: commitRE matches nothing before.
func commitStart(out string) int {
	if strings.HasPrefix(out, "[") {
		return 0
	}
	if i := strings.Index(out, "\n["); i >= 0 {
		return i + 1
	}
	return -1
}

// tallyWords holds, for each word of tallyRE's tally, a part of it.
var tallyWords = []string{"test", "pass", "example", "spec"}

// tallyStart returns where the line holding the first of tallyWords
// starts, or -1 when out holds none. A match of tallyRE may start at an
// earlier line (blank or decorated lines, "Tests:"), but then its tally,
// which holds one of the words, is the one the search from here finds.
func tallyStart(out string) int {
	first := -1
	for _, w := range tallyWords {
		if i := strings.Index(out, w); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		return -1
	}
	return strings.LastIndexByte(out[:first], '\n') + 1
}

// addValue appends v, shortened, unless the list is full or holds it.
func addValue(vs []string, v string) []string {
	v = shortLine(v, valueCap)
	if len(vs) >= maxValues || v == "" {
		return vs
	}
	for _, have := range vs {
		if have == v {
			return vs
		}
	}
	return append(vs, v)
}
