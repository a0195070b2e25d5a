package chunk

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/transcript"
)

// A task's spec (an issue shown by a tracker's CLI, a design document
// read from disk) often lists what the work must respect under a heading
// of its own: constraints, no-gos, non-goals, out of scope, edge cases.
// Those are the project owner's decisions as much as a prompt's are, and a
// compaction's summary rarely keeps them. The bullets under such a heading
// become one spec item, led by the heading. A kind of their own: the
// user's constraints are the user's words, which the restore carries and
// a spec's must not crowd out.

// specHeading matches such a heading alone on its line: Markdown or plain,
// bold or not, with a colon or not, with up to two words before the noun
// ("Architecture constraints", "Hard non-goals").
var specHeading = lazyRegexp(`(?i)^(?:#{1,6}\s*)?(?:\*\*)?(?:[a-z]+\s+){0,2}(?:constraints?|no-?gos?|non-?goals?|out of scope|edge cases?|guardrails?)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?$`)

// specHeadingMax bounds a heading's length: longer lines are not tried.
const specHeadingMax = 64

// specNouns are what every heading specHeading matches holds, lower case:
// a cheap test before the expression, run on every short line of output.
var specNouns = [][]byte{[]byte("constraint"), []byte("no-go"), []byte("nogo"), []byte("non-goal"), []byte("nongoal"),
	[]byte("out of scope"), []byte("edge case"), []byte("guardrail")}

// specNoun reports whether a line of at most specHeadingMax bytes holds
// one of specNouns, in any case.
func specNoun(line string) bool {
	if len(line) > specHeadingMax {
		return false
	}
	var buf [specHeadingMax]byte
	low := buf[:len(line)]
	for i := range len(line) {
		c := line[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for _, n := range specNouns {
		if bytes.Contains(low, n) {
			return true
		}
	}
	return false
}

// specBullet matches a list item: "- x", "* x", "• x", "1. x", "2) x".
var specBullet = lazyRegexp(`^\s{0,6}(?:[-*•+]|\d{1,2}[.)])\s+(\S.*)$`)

const (
	specScan      = 256 << 10 // bytes of one output scanned
	specSections  = 4         // headings taken from one output
	specBullets   = 8         // bullets taken under one heading
	specBulletCap = 300       // bytes of one bullet kept
	specItemCap   = 600       // bytes of one heading's item
	specTitleCap  = 32        // bytes of the spec's first line kept as the item's detail
)

// specSection is a constraint heading and the bullets under it.
type specSection struct {
	heading string
	bullets []string
}

// specConstraints returns the constraint headings of a tool's output with
// their bullets, in order, each bullet once. numbered says the output is a
// Read's, whose lines start with "    12→".
func specConstraints(out string, numbered bool) []specSection {
	if len(out) > specScan {
		out = out[:specScan]
	}
	var secs []specSection
	var got []string // every bullet taken, for dedupe
	sections := 0
	in := false    // under a heading
	blank := false // a blank line since the last bullet
	n := 0         // bullets under this heading
	last := -1     // the bullet an indented line continues, if kept
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if numbered {
			if i := strings.Index(line, "→"); i > 0 && i <= 8 && strings.Trim(line[:i], " 0123456789") == "" {
				line = line[i+len("→"):]
			}
		}
		trimmed := strings.TrimSpace(line)
		if specNoun(trimmed) && specHeading().MatchString(trimmed) {
			if sections == specSections {
				break
			}
			sections++
			in, blank, n, last = true, false, 0, -1
			secs = append(secs, specSection{heading: strings.Trim(trimmed, "#*: \t")})
			continue
		}
		if !in {
			continue
		}
		m := specBullet().FindStringSubmatch(line)
		switch {
		case trimmed == "":
			blank = true
		case m != nil:
			last, blank = -1, false
			if n < specBullets {
				b := shorten(strings.TrimSpace(m[1]), specBulletCap)
				if !slices.Contains(got, b) {
					got = append(got, b)
					sec := &secs[len(secs)-1]
					sec.bullets, last = append(sec.bullets, b), len(sec.bullets)
				}
			}
			n++
		case line != trimmed && n > 0 && !blank:
			// An indented line continues the bullet above it.
			if bs := secs[len(secs)-1].bullets; last >= 0 && len(bs[last]) < specBulletCap {
				bs[last] = shorten(bs[last]+" "+trimmed, specBulletCap)
			}
		default:
			in = false // the list ended, or the heading led no list
		}
	}
	return slices.DeleteFunc(secs, func(s specSection) bool { return len(s.bullets) == 0 })
}

// A spec names the files its task touches (an issue's "Output files", a
// design's references): after a compaction, the next steps of the task
// type them. specPaths bounds how many of them, and their bytes, one spec
// gives the working set (the first named: specs list the files to change
// before those to read).
const (
	specPathsMax = 24
	specPathsCap = 800
)

// specPaths returns the file paths a spec's output names, in order, each
// once: specific identifiers with a slash or a file name's extension, not
// URLs.
func specPaths(out string) []string {
	if len(out) > specScan {
		out = out[:specScan]
	}
	var paths []string
	n := 0
	for _, id := range ident.Rooted(out) {
		if !ident.Specific(id) || strings.Contains(id, "://") || !pathLike(id) || slices.Contains(paths, id) {
			continue
		}
		if len(paths) == specPathsMax || n+len(id) > specPathsCap {
			break
		}
		paths, n = append(paths, id), n+len(id)+1
	}
	return paths
}

// pathLike reports a path or a file name: a name with an extension of
// one to five letters or digits, not digits alone, after its last dot
// ("waiting_summary.ex", not a dotted call such as "Repo.all" nor a
// tracker's id such as "PROJ-alpha.3"), an absolute path, or names
// joined by slashes of which one is more than a word ("deps/otel_api", not
// the prose of "stdout/stderr" or "400/404", nor "Repo.all/1").
func pathLike(id string) bool {
	name := id[strings.LastIndexByte(id, '/')+1:]
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && len(name)-dot-1 <= 5 && len(name)-dot-1 >= 1 &&
		strings.Trim(name[dot+1:], "abcdefghijklmnopqrstuvwxyz0123456789") == "" &&
		strings.Trim(name[dot+1:], "0123456789") != "" {
		return true
	}
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) < 2 || strings.Trim(segs[len(segs)-1], "0123456789") == "" {
		return false // not a name, or a function's arity ("Repo.all/1")
	}
	if strings.HasPrefix(id, "/") || strings.HasPrefix(id, "~/") {
		return true
	}
	for _, s := range segs {
		if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" &&
			strings.Trim(s, "0123456789") != "" {
			return true
		}
	}
	return false
}

// spec adds a spec item for each constraint heading of what call c printed
// ("No-gos: a · b"), with the output's first line (the spec's title) as
// the detail.
func (b *builder) spec(c Call, p *part, e *transcript.Entry, out string) {
	if c.Name != "Bash" && c.Name != "Read" && c.Name != "WebFetch" && !strings.HasPrefix(c.Name, "mcp__") {
		return
	}
	secs := specConstraints(out, c.Name == "Read")
	if len(secs) == 0 {
		return
	}
	// The first named last: a line's later identifiers count as the more
	// recent, and a spec lists the files to change before those to read.
	paths := specPaths(out)
	slices.Reverse(paths)
	for _, id := range paths {
		if !slices.ContainsFunc(p.inputs, func(t tieredIdent) bool { return t.id == id }) {
			p.inputs = append(p.inputs, tieredIdent{id, tierSpec})
		}
	}
	title := cmp.Or(firstLine(strings.TrimSpace(out)), c.Head)
	for _, sec := range secs {
		t := shorten(sec.heading+": "+strings.Join(sec.bullets, valueSep), specItemCap)
		b.item(p, e, carryover.KindSpec, t, shortLine(title, specTitleCap), false)
	}
}
