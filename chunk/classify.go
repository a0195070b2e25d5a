package chunk

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/carryover-dev/carryover"
)

// Weight is the part of an item's restore score known at extraction time:
//
//	Weight = typeWeight(kind) × markerBoost
//
// typeWeight is 1.0 for constraints, markers and unresolved errors; 0.9 for
// decisions, fixes and todo state; 0.8 for goals and resolved errors; 0.7
// for file edits; 0.5 for commands that change something and 0.3 for
// read-only ones. markerBoost is 1.5 when the text says CRITICAL or
// IMPORTANT, else 1. The restore side multiplies by recency and by the
// cycle decay exp(−cycleAge/halfLife), as compahook does.
func Weight(kind carryover.ItemKind, text string, resolved, readOnly bool) float64 {
	w := 0.5
	switch kind {
	case carryover.KindConstraint, carryover.KindMarker, carryover.KindNote:
		w = 1.0
	case carryover.KindDecision, carryover.KindFix, carryover.KindTodo:
		w = 0.9
	case carryover.KindGoal, carryover.KindSpec:
		w = 0.8
	case carryover.KindError:
		w = 1.0
		if resolved {
			w = 0.8
		}
	case carryover.KindFileEdit:
		w = 0.7
	case carryover.KindCommand:
		if readOnly {
			w = 0.3
		}
	}
	if strings.Contains(text, "CRITICAL") || strings.Contains(text, "IMPORTANT") {
		w *= 1.5
	}
	return w
}

// todoKey is the one key of a session's todo state, so the store keeps only
// the latest list.
const todoKey = "todo:list"

// maxKey bounds the normalised text part of a key.
const maxKey = 240

// Key is an item's dedup key: kind + ":" + the text NFKC-normalised,
// lower-cased and whitespace-collapsed, with kind-aware normalisation:
// file paths are cleaned, commands lose a trailing "2>&1", and errors have
// digit runs and hex addresses replaced by "#" so the same error on another
// line or at another time dedups. The todo state has one constant key.
func Key(kind carryover.ItemKind, text string) string {
	if kind == carryover.KindTodo {
		return todoKey
	}
	s := oneLine(strings.ToLower(norm.NFKC.String(text)))
	switch kind {
	case carryover.KindFileEdit:
		s = path.Clean(s)
	case carryover.KindCommand, carryover.KindFix:
		s = strings.TrimSpace(strings.TrimSuffix(s, "2>&1"))
	case carryover.KindError:
		s = maskNumbers(s)
	}
	return string(kind) + ":" + s[:cutAt(s, maxKey)]
}

// maskNumbers replaces hex addresses and digit runs with "#".
func maskNumbers(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '0' && i+1 < len(s) && s[i+1] == 'x':
			j := i + 2
			for j < len(s) && isHex(s[j]) {
				j++
			}
			b.WriteByte('#')
			i = j
		case c >= '0' && c <= '9':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			b.WriteByte('#')
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
}

// errorWords mark the salient lines of a failing command's output.
var errorWords = []string{"error", "fail", "fatal", "exception", "panic", "undefined", "cannot", "can't",
	"not found", "no such", "denied", "invalid", "unexpected", "refused", "timed out", "traceback", "ambiguous", "unknown", "missing"}

// SummaryLines is how many of a failure's error lines its summary (an
// error item's text, ErrorText) holds at most.
const SummaryLines = 3

// errorLine reports whether a line of a failure's output holds an error word.
func errorLine(line string) bool {
	low := strings.ToLower(line)
	for _, w := range errorWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// errorLines returns the distinct lines of out that hold an error word,
// trimmed, in order, at most max (blank and "Exit code" lines aside).
func errorLines(out string, max int) []string {
	var lines []string
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "Exit code ") || !errorLine(line) || slices.Contains(lines, line) {
			continue
		}
		if lines = append(lines, line); len(lines) == max {
			break
		}
	}
	return lines
}

// errorSummary picks the lines of a failure's output that say what went
// wrong (falling back to its first lines), at most 300 bytes.
func errorSummary(out string, code int) string {
	picked := errorLines(out, SummaryLines)
	size := 0
	for i, l := range picked {
		if size += len(l); size > 300 {
			picked = picked[:i+1]
			break
		}
	}
	if len(picked) == 0 {
		for line := range strings.Lines(out) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "Exit code ") {
				if picked = append(picked, line); len(picked) == 2 {
					break
				}
			}
		}
	}
	s := strings.Join(picked, " | ")
	if code > 0 {
		s = "exit " + strconv.Itoa(code) + ": " + s
	}
	return shortLine(s, 300)
}

// trivialCommands are not worth a command item.
var trivialCommands = map[string]bool{"ls": true, "cd": true, "pwd": true, "cat": true, "echo": true,
	"which": true, "true": true, "sleep": true, "clear": true, "date": true, "whoami": true}

// readOnlyCommands only look: their command items weigh less.
var readOnlyCommands = map[string]bool{"git status": true, "git log": true, "git diff": true, "git show": true,
	"git branch": true, "grep": true, "rg": true, "find": true, "head": true, "tail": true, "wc": true,
	"bd show": true, "bd list": true, "bd ready": true, "tree": true, "sed": true, "awk": true, "jq": true,
	"file": true, "stat": true, "du": true, "df": true, "ps": true, "env": true, "diff": true}

// commandHead is a command's program and subcommand ("git push", "mix
// test"), after leading "cd dir &&" and VAR=value prefixes: a failing
// command counts as fixed when a later command with the same head succeeds.
func commandHead(cmd string) string {
	f := strings.Fields(cmd)
	for len(f) > 0 {
		switch {
		case f[0] == "cd" && len(f) >= 3 && (f[2] == "&&" || f[2] == ";"):
			f = f[3:]
			continue
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-"):
			f = f[1:]
			continue
		}
		break
	}
	if len(f) == 0 {
		return ""
	}
	head := path.Base(f[0])
	if len(f) > 1 && isSubcommand(f[1]) {
		head += " " + f[1]
	}
	return head
}

func isSubcommand(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return !strings.ContainsAny(s, "./=|&;<>$\"'")
}

// decisionCues mark assistant sentences that state a choice.
var decisionCues = []string{"i'll use", "i will use", "we'll use", "let's use", "decided", "decide to", "decision",
	"chose ", "chosen", "choosing", "going with", "opted", "i recommend", "i'd recommend", "i'll recommend",
	"i would recommend"}

// weakDecisionCues compare options; they state a choice only with someone
// who makes it ("we should use X rather than Y"), not in a diagnosis ("the
// issue is that it falls back to X instead of Y").
var weakDecisionCues = []string{"instead of", "rather than", "better to", "the approach", "prefer ", "go with"}

// choosers are who makes a choice in a sentence with a weak cue.
var choosers = []string{"i'll ", "i will ", "we'll ", "we will ", "let's ", "we should ", "i should ", "i'm going to ",
	"we're going to ", "i'd ", "we'd "}

// reportOpenings start assistant sentences that diagnose or report rather
// than choose.
var reportOpenings = []string{"the issue", "the problem", "the error", "the bug", "this is", "that's", "it's",
	"fixed", "i see", "looking at", "you're", "**"}

// constraintWords mark user sentences that set a rule.
var constraintWords = []string{"always", "never", "don't", "do not", "dont", "must", "must not", "should not",
	"shouldn't", "make sure", "avoid"}

// questionOpenings start a question even without its question mark.
var questionOpenings = []string{"what ", "why ", "how ", "when ", "where ", "which ", "who ", "can you", "could you",
	"would you", "can we", "could we", "should we", "should i", "do we", "do you", "does ", "did ", "is there",
	"are there", "is it ", "wouldn't", "isn't", "aren't"}

// markerWords start a marker line, with their boost.
var markerWords = []string{"IMPORTANT:", "CRITICAL:", "REMEMBER:", "NOTE:", "TODO:"}

func isDecision(sentence string) bool {
	if len(sentence) < 20 || len(sentence) > 400 || strings.HasSuffix(sentence, ":") {
		return false // a lead-in to a list is no choice yet
	}
	low := strings.ReplaceAll(strings.ToLower(sentence), "’", "'")
	if hasPrefixAny(low, reportOpenings) {
		return false
	}
	if containsAny(low, decisionCues) {
		return true
	}
	return containsAny(low, weakDecisionCues) && containsAny(low, choosers)
}

// isConstraint reports whether a user sentence sets a rule. Questions,
// lead-ins to a list and sentences that look like pasted code, markup or
// table rows are not rules.
func isConstraint(sentence string) bool {
	if len(sentence) < 8 || len(sentence) > 400 || strings.ContainsAny(sentence, "{}") ||
		strings.Contains(sentence, "</") || strings.Contains(sentence, "\":") || strings.Contains(sentence, `\n`) ||
		strings.Count(sentence, "|") >= 2 || strings.ContainsRune(sentence, '\t') {
		return false
	}
	low := strings.ReplaceAll(strings.ToLower(sentence), "’", "'")
	if IsQuestion(low) || strings.HasSuffix(low, ":") {
		return false
	}
	for _, w := range constraintWords {
		if hasWord(low, w) {
			return true
		}
	}
	return false
}

// IsQuestion reports whether a lower-cased sentence asks rather than states.
func IsQuestion(low string) bool {
	return strings.HasSuffix(low, "?") || hasPrefixAny(low, questionOpenings)
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// markers returns the lines of text holding a marker word, from the marker on.
func markers(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		for _, m := range markerWords {
			if i := strings.Index(line, m); i >= 0 {
				out = append(out, shortLine(line[i:], 300))
				break
			}
		}
	}
	return out
}
