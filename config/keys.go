package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carryover-dev/carryover/internal/smallfile"
	"github.com/carryover-dev/carryover/redact"
)

// kind is the type a key's value must have.
type kind int

const (
	kindString   kind = iota
	kindPath          // a string: an absolute path, or ~/ under the home directory
	kindInt           // an integer from 1 to keyDef.max (from the environment: digits)
	kindBool          // a boolean (from the environment: true, false, 1, 0…)
	kindDuration      // "2s", "500ms", or a number of seconds
	kindText          // a string of at most maxInstructions characters
	kindPatterns      // an array of redact patterns, "kind: regexp" or "regexp"
	kindDirs          // an array of directories, absolute or ~/
)

// keyDef is one configuration key.
type keyDef struct {
	name string
	env  string // its CARRYOVER_ variable, "" when only files set it
	kind kind
	max  int // kindInt's upper bound
	// project marks a harmless key: a project's .carryover.toml may set it.
	// Anything else could send the archive elsewhere, read or write a file,
	// or change what is masked, and comes from the user or the environment.
	project bool
	// userOnly keys are not taken from a project file even when trusted.
	userOnly bool
	// relEnv accepts a relative path from the environment (the user's
	// shell, resolved where the command runs), never from a file.
	relEnv bool
	// record is the key the value and its source belong to ("" for name).
	record string
	set    func(c *Config, v any) // v: string, int, bool, time.Duration or []string by kind
	// deprecated names the key that replaces this older one: a file that
	// sets it still works, with a warning.
	deprecated string
}

// keyTable lists the keys in the README's order.
func keyTable() []keyDef {
	setDB := func(c *Config, v any) { c.DB = v.(string) }
	return []keyDef{
		{name: "db", env: "CARRYOVER_DB", kind: kindPath, relEnv: true, set: setDB},
		{name: "database", kind: kindPath, record: "db", deprecated: "db", set: setDB},
		{name: "budget", env: "CARRYOVER_BUDGET", kind: kindInt, max: maxBudget, project: true,
			set: func(c *Config, v any) { c.Budget = v.(int) }},
		{name: "budget_tokens", env: "CARRYOVER_BUDGET_TOKENS", kind: kindInt, max: maxBudget / 4, project: true, record: "budget",
			set: func(c *Config, v any) { c.Budget = v.(int) * 4 }},
		{name: "recall", env: "CARRYOVER_RECALL", kind: kindBool, project: true,
			set: func(c *Config, v any) { c.Recall = v.(bool) }},
		{name: "recall_budget", env: "CARRYOVER_RECALL_BUDGET", kind: kindInt, max: maxBudget, project: true,
			set: func(c *Config, v any) { c.RecallBudget = v.(int) }},
		{name: "startup_brief", env: "CARRYOVER_STARTUP_BRIEF", kind: kindBool, project: true,
			set: func(c *Config, v any) { c.StartupBrief = v.(bool) }},
		{name: "compact_instructions", kind: kindText, project: true,
			set: func(c *Config, v any) {
				c.CompactInstructions = strings.TrimSpace(c.CompactInstructions + "\n" + v.(string))
			}},
		{name: "redact", kind: kindPatterns, project: true,
			set: func(c *Config, v any) { c.Redact = append(c.Redact, v.([]string)...) }},
		{name: "hook_timeout", env: "CARRYOVER_HOOK_TIMEOUT", kind: kindDuration,
			set: func(c *Config, v any) { c.HookTimeout = v.(time.Duration) }},
		{name: "session_end_timeout", env: "CARRYOVER_SESSION_END_TIMEOUT", kind: kindDuration,
			set: func(c *Config, v any) { c.SessionEndTimeout = v.(time.Duration) }},
		{name: "database_url", env: "CARRYOVER_DATABASE_URL", kind: kindString,
			set: func(c *Config, v any) { c.DatabaseURL = v.(string) }},
		{name: "owner", env: "CARRYOVER_OWNER", kind: kindString,
			set: func(c *Config, v any) { c.Owner = v.(string) }},
		{name: "team", env: "CARRYOVER_TEAM", kind: kindString,
			set: func(c *Config, v any) { c.Team = v.(string) }},
		{name: "redact_patterns", env: "CARRYOVER_REDACT_PATTERNS", kind: kindPath,
			set: func(c *Config, v any) { c.RedactPatterns = v.(string) }},
		{name: "trusted_projects", kind: kindDirs, userOnly: true,
			set: func(c *Config, v any) { c.TrustedProjects = append(c.TrustedProjects, v.([]string)...) }},
	}
}

// adds reports whether each layer adds to the key's value rather than
// replacing it: a project's instructions and patterns come on top of the
// user's.
func (k keyDef) adds() bool {
	return k.kind == kindText || k.kind == kindPatterns || k.kind == kindDirs
}

// loader applies layers to a Config.
type loader struct {
	c    *Config
	home string
	keys []keyDef
}

func (l *loader) lookup(name string) (keyDef, bool) {
	for _, k := range l.keys {
		if k.name == name {
			return k, true
		}
	}
	return keyDef{}, false
}

func (l *loader) problem(p Problem) { l.c.Problems = append(l.c.Problems, p) }

// file applies a user or project config file, if it exists.
func (l *loader) file(layer Layer, path string) {
	whole := Source{Layer: layer, File: path}
	data, ok, err := readFile(path)
	if err != nil {
		l.problem(Problem{Source: whole, Msg: fmt.Sprintf("%v; the file is ignored", err)})
		return
	}
	if !ok {
		return
	}
	entries, err := parse(data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			whole.Line = se.line
		}
		l.problem(Problem{Source: whole, Msg: fmt.Sprintf("not valid TOML (%v); the whole file is ignored", err)})
		return
	}
	trusted := false
	if layer == ProjectFile {
		trusted = l.c.Trusts(filepath.Dir(path))
		l.c.ProjectTrusted = trusted
	}
	for _, e := range entries {
		src := Source{Layer: layer, File: path, Line: e.line}
		k, ok := l.lookup(e.key)
		switch {
		case !ok:
			l.problem(Problem{Source: src, Key: e.key, Msg: "unknown key"})
		case layer == ProjectFile && k.userOnly:
			l.problem(Problem{Source: src, Key: e.key, Refused: true, Msg: "only your own config may set it"})
		case layer == ProjectFile && !k.project && !trusted:
			l.problem(Problem{Source: src, Key: e.key, Refused: true,
				Msg: "only your own config may set it; add the project to trusted_projects to allow it"})
		default:
			if k.deprecated != "" {
				l.problem(Problem{Source: src, Key: e.key, Msg: fmt.Sprintf("deprecated: an older name of %s, still read; rename it %s", k.deprecated, k.deprecated)})
			}
			l.apply(k, e.val, src)
		}
	}
}

// apply checks v, a file's value or an environment variable's string,
// against the key's kind and sets it.
func (l *loader) apply(k keyDef, v any, src Source) {
	val, err := l.convert(k, v, src)
	if err != nil {
		l.problem(Problem{Source: src, Key: k.name, Msg: err.Error()})
		return
	}
	if val == nil { // a list whose every element was a problem
		return
	}
	k.set(l.c, val)
	rec := k.name
	if k.record != "" {
		rec = k.record
	}
	if n := map[string]int{"budget": l.c.Budget, "recall_budget": l.c.RecallBudget}[rec]; n > HookOutputCap {
		l.problem(Problem{Source: src, Key: k.name, Msg: fmt.Sprintf("%d chars is over the %d Claude Code shows of a hook's output "+
			"(it moves more to a file and shows the model a 2 KB preview); carryover's hooks cut what they inject to %d, so the rest is never used",
			n, HookOutputCap, HookContextMax)})
	}
	if k.adds() {
		l.c.Sources[rec] = append(nonDefault(l.c.Sources[rec]), src)
	} else {
		l.c.Sources[rec] = []Source{src}
	}
}

func nonDefault(ss []Source) []Source {
	if len(ss) == 1 && ss[0].Layer == Default {
		return nil
	}
	return ss
}

func (l *loader) convert(k keyDef, v any, src Source) (any, error) {
	env := src.Layer == Environment
	switch k.kind {
	case kindString, kindText:
		s, ok := v.(string)
		if !ok {
			return nil, wantGot("a string", v)
		}
		if k.kind == kindText && len([]rune(s)) > maxInstructions {
			return nil, fmt.Errorf("longer than %d characters", maxInstructions)
		}
		return s, nil
	case kindPath:
		s, ok := v.(string)
		if !ok {
			return nil, wantGot("a string", v)
		}
		return l.path(s, env && k.relEnv)
	case kindInt:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case string:
			if !env {
				return nil, wantGot("an integer", v)
			}
			var err error
			if n, err = strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
				return nil, fmt.Errorf("want an integer, got %q", x)
			}
		default:
			return nil, wantGot("an integer", v)
		}
		if n <= 0 || n > int64(k.max) {
			return nil, fmt.Errorf("want an integer from 1 to %d, got %d", k.max, n)
		}
		return int(n), nil
	case kindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); env && err == nil {
				return b, nil
			}
			if env {
				return nil, fmt.Errorf("want true or false, got %q", x)
			}
		}
		return nil, wantGot("true or false", v)
	case kindDuration:
		var d time.Duration
		switch x := v.(type) {
		case string:
			var err error
			if d, err = time.ParseDuration(strings.TrimSpace(x)); err != nil {
				f, ferr := strconv.ParseFloat(strings.TrimSpace(x), 64)
				if ferr != nil {
					return nil, fmt.Errorf("want a duration such as \"2s\", got %q", x)
				}
				d = time.Duration(min(max(f, -1), maxTimeout.Seconds()+1) * float64(time.Second))
			}
		case int64:
			d = time.Duration(min(max(x, -1), int64(maxTimeout/time.Second)+1)) * time.Second
		case float64:
			d = time.Duration(min(max(x, -1), maxTimeout.Seconds()+1) * float64(time.Second))
		default:
			return nil, wantGot("a duration such as \"2s\"", v)
		}
		if d <= 0 || d > maxTimeout {
			return nil, fmt.Errorf("want a duration from 1ms to %v, got %#v", maxTimeout, v)
		}
		return d, nil
	case kindPatterns, kindDirs:
		arr, ok := v.([]any)
		if !ok {
			// Not the value: a pattern may hold a secret.
			return nil, fmt.Errorf("want an array of strings, got %s", typeName(v))
		}
		// Each element stands alone: a bad one is a problem, the others apply.
		var out []string
		for i, el := range arr {
			s, ok := el.(string)
			var err error
			switch {
			case !ok:
				err = fmt.Errorf("want a string, got %s", typeName(el))
			case k.kind == kindDirs:
				s, err = l.path(s, false)
				s = filepath.Clean(s)
			default:
				err = l.pattern(s)
			}
			if err != nil {
				l.problem(Problem{Source: src, Key: fmt.Sprintf("%s[%d]", k.name, i), Msg: err.Error() + " (ignored)"})
				continue
			}
			out = append(out, s)
		}
		if out == nil {
			return nil, nil
		}
		return out, nil
	}
	return nil, fmt.Errorf("key of unknown kind %d", k.kind)
}

// path expands ~/ and requires an absolute path unless relOK.
func (l *loader) path(s string, relOK bool) (string, error) {
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		if l.home == "" {
			return "", fmt.Errorf("%q: no home directory to expand ~ in", s)
		}
		return filepath.Join(l.home, rest), nil
	}
	if s == "" || !filepath.IsAbs(s) && !relOK {
		return "", fmt.Errorf("want an absolute path (or ~/...), got %q", s)
	}
	return s, nil
}

// pattern compiles one inline redact pattern and keeps it. Its text is
// never quoted in a problem: a pattern may hold a secret.
func (l *loader) pattern(s string) error {
	if len(s) > maxPatternBytes {
		return fmt.Errorf("longer than %d bytes", maxPatternBytes)
	}
	if strings.ContainsAny(s, "\r\n") || strings.HasPrefix(strings.TrimSpace(s), "#") || strings.TrimSpace(s) == "" {
		return errors.New("want one regexp, optionally after \"kind: \"")
	}
	ps, errs := redact.ParsePatterns(strings.NewReader(s))
	if len(errs) > 0 {
		return errors.New(strings.TrimPrefix(errs[0].Error(), "line 1: "))
	}
	l.c.patterns = append(l.c.patterns, ps...)
	return nil
}

// redactor builds the Redactor from the inline patterns and the
// redact_patterns file. An unreadable file or an invalid line is a
// problem and skipped.
func (l *loader) redactor() {
	ps := l.c.patterns
	if path := l.c.RedactPatterns; path != "" {
		src := l.c.Sources["redact_patterns"][0]
		src.File, src.Line = path, 0
		problem := func(format string, args ...any) {
			l.problem(Problem{Source: src, Key: "redact_patterns", Msg: fmt.Sprintf(format, args...)})
		}
		data, truncated, err := smallfile.Read(path, maxFileBytes)
		switch {
		case err != nil:
			problem("%v", err)
		case truncated:
			problem("larger than %d KiB: only its first part is used", maxFileBytes>>10)
		}
		fps, errs := redact.ParsePatterns(strings.NewReader(string(data)))
		for _, e := range errs {
			problem("%v (the line is ignored)", e)
		}
		ps = append(ps[:len(ps):len(ps)], fps...)
	}
	if len(ps) > maxPatterns {
		l.problem(Problem{Key: "redact", Msg: fmt.Sprintf("%d extra patterns: only the first %d are used", len(ps), maxPatterns)})
		ps = ps[:maxPatterns]
	}
	if len(ps) > 0 {
		l.c.Redactor = redact.New(redact.Options{Extra: ps})
	}
}

// wantGot describes a value of the wrong type.
func wantGot(want string, v any) error {
	if s, ok := v.(string); ok && len(s) <= 40 {
		return fmt.Errorf("want %s, got the string %q", want, s)
	}
	return fmt.Errorf("want %s, got %s", want, typeName(v))
}

// typeName names a value's TOML type, not the value.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
