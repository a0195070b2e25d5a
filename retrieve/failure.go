package retrieve

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/internal/projectdir"
)

// Failure recall: when a tool call fails, the archive may hold the same
// failure from before the last compaction, or from an earlier session,
// and what made it pass. Most failures match nothing, or nothing that
// was fixed; then nothing is injected.
const (
	// FailureMinScore is the similarity (see failureScore) an archived
	// failure needs to be recalled, calibrated leave-one-session-out with
	// `carryover bench jit`.
	FailureMinScore = 0.5
	// FailureBudget is the most one failure recall injects.
	FailureBudget = 800
	// MaxErrorText is how much of an error text is read: test runs can
	// print megabytes, and the lines that name the failure come first.
	MaxErrorText = 256 << 10
	// failureCandidates bounds the archived failures compared, newest first.
	failureCandidates = 1000
	// minSignatureTokens is the fewest distinct words a signature needs to
	// be matched at all: "exit 1" alone says nothing.
	minSignatureTokens = 3
)

// FailureRequest describes a tool call that just failed.
type FailureRequest struct {
	SessionID string
	Project   string
	// Window is the session's current context window: failures of this
	// window are still in front of the model and are not recalled.
	Window  int
	Tool    string // the tool's name: Bash, an MCP tool, ...
	Command string // Bash: the command that failed
	Error   string // the error text (the hook's "error", or a failed Bash result)
	// Exclude holds error items already recalled into this context: a
	// signature is recalled once per context window.
	Exclude map[int64]bool
	// MinScore overrides FailureMinScore when > 0 (calibration sweeps).
	MinScore float64
}

// FailureRecall finds an earlier occurrence of the failure that was fixed
// and returns one short block saying what fixed it: "This failed before
// (<when>, session <id>): … Fixed by …", at most FailureBudget characters.
// The block's ItemIDs start with the archived error item's id. It returns
// an empty block when the failure is not one carryover can match (a file
// tool's complaint about its own input, an interrupt, too little text), when
// nothing similar enough was fixed before, or when the best match is
// excluded.
func FailureRecall(ctx context.Context, st carryover.Store, req FailureRequest) (Block, error) {
	if !RecallableFailure(req.Tool, req.Error) {
		return Block{}, nil
	}
	minScore := req.MinScore
	if minScore <= 0 {
		minScore = FailureMinScore
	}
	text := req.Error
	if len(text) > MaxErrorText {
		text = text[:MaxErrorText]
	}
	live := newFailureSig(chunk.ErrorText(text), req.Tool, req.Command)
	if len(live.tokens) < minSignatureTokens {
		return Block{}, nil
	}
	// A project is the repository, so its checkouts' failures are here.
	items, err := st.Items(ctx, carryover.ItemFilter{Project: req.Project, Kinds: []carryover.ItemKind{carryover.KindError}, Limit: failureCandidates})
	if err != nil {
		return Block{}, fmt.Errorf("failure recall: %w", err)
	}
	var best carryover.Item
	bestScore := 0.0
	for _, it := range items {
		if it.SessionID == req.SessionID && it.Window >= req.Window {
			continue // still in the context window
		}
		if !it.Resolved {
			continue // nothing to tell: it was not fixed
		}
		s := live.score(it)
		if s < minScore {
			continue
		}
		// Ties go to this session, then to the newest (items come
		// newest first).
		if s > bestScore || s == bestScore && it.SessionID == req.SessionID && best.SessionID != req.SessionID {
			best, bestScore = it, s
		}
	}
	shown := best.Text
	if best.ID == 0 {
		if best, shown, err = deepFailure(ctx, st, req, live, text, items); err != nil {
			return Block{}, err
		}
	}
	if best.ID == 0 || req.Exclude[best.ID] {
		return Block{}, nil
	}
	return renderFailure(ctx, st, req, best, shown)
}

// Deep failures: an error item holds a failure's first error lines only
// (chunk.SummaryLines), so a failure that an earlier run printed after
// others (another test failing first, warnings) is not matched by it.
const (
	// deepFailureHits bounds the passages searched for the live failure's
	// error lines, and deepFailureReads the archived outputs read back.
	deepFailureHits, deepFailureReads = 12, 4
	// deepErrorLines bounds the error lines of one archived output that
	// are compared.
	deepErrorLines = 400
)

// deepFailure finds, through the passages of the raw lines, an earlier
// failed output of the same program that printed each of the live
// failure's specific error lines (those naming an identifier: the test,
// the file, the package) anywhere, and was fixed. A line matches when its
// signature is the same (numbers, paths of temporary directories, hashes
// aside): a rule stricter than the items' score, which words every
// failure of a tool shares ("FAIL", the module path) would satisfy. items
// are the archived errors the items' score compared: a passage is taken
// only as one of their outputs. It returns the archived error item and
// the lines that matched.
func deepFailure(ctx context.Context, st carryover.Store, req FailureRequest, live failureSig, text string, items []carryover.Item) (carryover.Item, string, error) {
	ps, ok := st.(carryover.PassageSearcher)
	if !ok {
		return carryover.Item{}, "", nil
	}
	var want []string // the signatures of the live failure's specific lines
	var query strings.Builder
	for _, l := range chunk.ErrorLines(text, chunk.SummaryLines) {
		if len(ident.Specifics(l)) > 0 {
			want = append(want, Signature(l))
			query.WriteString(clip(l, 300) + "\n") // the store keeps 24 terms
		}
	}
	if len(want) == 0 {
		return carryover.Item{}, "", nil
	}
	q := carryover.Query{Text: query.String(), Project: req.Project, Limit: deepFailureHits}
	if req.Project == "" {
		q = carryover.Query{Text: q.Text, SessionID: req.SessionID, BeforeWindow: req.Window, Limit: deepFailureHits}
	}
	hits, err := ps.SearchPassages(ctx, q)
	if err != nil {
		return carryover.Item{}, "", fmt.Errorf("failure recall: passages: %w", err)
	}
	type place struct {
		session string
		line    int
	}
	errs := make(map[place]carryover.Item, len(items))
	for _, it := range items {
		errs[place{it.SessionID, it.Line}] = it
	}
	read := map[place]bool{}
	outputs := NewErrorOutputs(st)
	for _, h := range hits {
		at := place{h.SessionID, h.Line}
		if read[at] || len(read) == deepFailureReads {
			continue
		}
		it, ok := errs[at]
		if !ok || !it.Resolved || it.SessionID == req.SessionID && it.Window >= req.Window || !live.sameProgram(it) {
			continue // not a failure's output, not fixed, still in the window, or another program's
		}
		read[at] = true
		lines, err := outputs.Lines(ctx, it)
		if err != nil {
			return carryover.Item{}, "", fmt.Errorf("failure recall: %w", err)
		}
		printed := map[string]string{} // the archived error lines by signature
		for _, l := range lines {
			if sig := Signature(l); printed[sig] == "" {
				printed[sig] = l
			}
		}
		var matched []string
		deep := false // a line the item's summary, compared already, lacks
		for _, sig := range want {
			if l := printed[sig]; l != "" {
				matched = append(matched, l)
				deep = deep || !strings.Contains(it.Text, l)
			}
		}
		if len(matched) == len(want) && deep {
			return it, strings.Join(matched, " | "), nil // hits come best first
		}
	}
	return carryover.Item{}, "", nil
}

// RecallableFailure reports whether a failure is worth looking up: not an
// interrupt or a sibling cancelled with it, not a file tool complaining
// about its own input ("String to replace not found", "File has not been
// read yet"), whose message already says what to do.
func RecallableFailure(tool, errText string) bool {
	switch tool {
	case "Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Glob", "Grep", "LS", "TodoWrite":
		return false
	}
	head := errText[:min(len(errText), 200)]
	return strings.TrimSpace(head) != "" && !strings.Contains(head, "Sibling tool call errored") &&
		!strings.Contains(head, "[Request interrupted")
}

// failureSig is a failure reduced to what identifies it across runs.
type failureSig struct {
	tokens map[string]bool
	tool   string // "bash" or the tool's name
	head   string // Bash: the command's head, "git push"
}

func newFailureSig(errText, tool, command string) failureSig {
	s := failureSig{tokens: sigTokens(Signature(errText)), tool: tool}
	if tool == "Bash" {
		s.tool, s.head = "bash", chunk.CommandHead(command)
	}
	return s
}

// score compares an archived error item with the live failure: the
// Jaccard similarity of their signatures' words, lowered when the command
// differs (0.85 for another subcommand of the same program, 0.7 for
// another program). An item of another tool scores 0.
func (s failureSig) score(it carryover.Item) float64 {
	tool, head := itemCall(it)
	if tool != s.tool {
		return 0
	}
	j := jaccardSet(s.tokens, sigTokens(Signature(it.Text)))
	if s.tool != "bash" || head == s.head {
		return j
	}
	prog, _, _ := strings.Cut(head, " ")
	liveProg, _, _ := strings.Cut(s.head, " ")
	if prog == liveProg {
		return 0.85 * j
	}
	return 0.7 * j
}

// sameProgram reports whether an archived error item comes from a call of
// the same tool, and for a shell command of the same program.
func (s failureSig) sameProgram(it carryover.Item) bool {
	tool, head := itemCall(it)
	prog, _, _ := strings.Cut(head, " ")
	liveProg, _, _ := strings.Cut(s.head, " ")
	return tool == s.tool && prog == liveProg
}

// itemCall returns the tool and the command head of the call an error
// item came from. The chunker keeps the call's one-line head in Detail
// ("$ git push 2>&1"), after "fixed by: … — in " once resolved.
func itemCall(it carryover.Item) (tool, head string) {
	call := it.Detail
	if strings.HasPrefix(call, "fixed by: ") {
		if i := strings.LastIndex(call, " — in "); i >= 0 {
			call = call[i+len(" — in "):]
		}
	}
	if cmd, ok := strings.CutPrefix(call, "$ "); ok {
		return "bash", chunk.CommandHead(cmd)
	}
	name, _, _ := strings.Cut(call, " ")
	return name, ""
}

// Signature normalisation: what changes from one run of the same failure
// to the next. Compiled on first use: every hook process would pay for
// them at start-up, and only failure recall uses them.
type sigPatterns struct{ exit, uuid, time, temp, addr, hex, num *regexp.Regexp }

var sigRegexps = sync.OnceValue(func() (r sigPatterns) {
	r.exit = regexp.MustCompile(`^\s*(exit code \d+\s*|exit \d+:\s*)`)
	r.uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	r.time = regexp.MustCompile(`\d{4}-\d\d-\d\d(?:[t ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:z|[+-]\d\d:?\d\d)?)?|\b\d\d?:\d\d:\d\d(?:[.,]\d+)?`)
	r.temp = regexp.MustCompile(`(?:/private)?/(?:tmp|var/folders|var/tmp|dev/shm)(?:/[^\s:'"(),]*)?|[a-z]:\\users\\[^\\\s]+\\appdata\\local\\temp(?:\\[^\s:'"(),]*)?`)
	r.addr = regexp.MustCompile(`0x[0-9a-f]+`)
	r.hex = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)
	r.num = regexp.MustCompile(`\d+`)
	return r
})

// Signature normalises an error text into what identifies the failure
// from one run to the next: lower case, without the "Exit code N" (or
// "exit N:") prefix, with temporary directories, UUIDs, timestamps, hex
// addresses and hashes replaced by placeholders and every other number
// (line and column numbers, counts, ids) by #.
func Signature(text string) string {
	re := sigRegexps()
	s := strings.ToLower(text)
	s = re.exit.ReplaceAllString(s, "")
	s = re.temp.ReplaceAllString(s, " tmpdir ")
	s = re.uuid.ReplaceAllString(s, " uuid ")
	s = re.time.ReplaceAllString(s, " time ")
	s = re.addr.ReplaceAllString(s, " addr ")
	s = re.hex.ReplaceAllStringFunc(s, func(h string) string {
		if strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") {
			return " hash "
		}
		return h
	})
	s = re.num.ReplaceAllString(s, "#")
	return oneLine(s)
}

// sigTokens splits a signature into its distinct words: runs of letters,
// digits, # and _, and single characters of scripts written without
// spaces (Chinese, Japanese), so that errors in any language compare.
func sigTokens(sig string) map[string]bool {
	out := map[string]bool{}
	var w strings.Builder
	flush := func() {
		if t := w.String(); t != "" && strings.Trim(t, "#_") != "" {
			out[t] = true
		}
		w.Reset()
	}
	for _, r := range sig {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			flush()
			out[string(r)] = true
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '#' || r == '_':
			w.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func jaccardSet(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// renderFailure writes the block for the archived error it: when and
// where it failed, what fixed it (the fix item: the edits made before the
// passing run, or the command that passed) and why (the assistant's first
// words after the failure).
func renderFailure(ctx context.Context, st carryover.Store, req FailureRequest, it carryover.Item, shown string) (Block, error) {
	blk := Block{ItemIDs: []int64{it.ID}, Reason: "failure recall"}
	fix, fixLine := fixedBy(it), it.Line
	fixes, err := st.Items(ctx, carryover.ItemFilter{SessionID: it.SessionID, Kinds: []carryover.ItemKind{carryover.KindFix}})
	if err != nil {
		return Block{}, fmt.Errorf("failure recall: fixes: %w", err)
	}
	for _, f := range fixes { // newest first: the latest fix of this error
		if strings.HasPrefix(f.Detail, it.Text) {
			fix, fixLine = f.Text, f.Line
			if _, verified, ok := strings.Cut(f.Detail[len(it.Text):], "(then `"); ok {
				fix += "; then `" + strings.TrimSuffix(strings.TrimSpace(verified), "` passed)") + "` passed"
			}
			blk.ItemIDs = append(blk.ItemIDs, f.ID)
			break
		}
	}
	if fix == "" {
		return Block{}, nil
	}
	_, failedHead := itemCall(it)
	why, between, chunkID, err := failureContext(ctx, st, it, fixLine, failedHead)
	if err != nil {
		return Block{}, err
	}
	if chunkID != 0 {
		blk.ChunkIDs = []int64{chunkID}
	}
	steps := []string{fix}
	if _, fixHead := itemCall(carryover.Item{Detail: "$ " + fix}); fixHead == failedHead && fixHead != "" && len(between) > 0 {
		// The passing run is the same command again: what ran before it
		// is the fix.
		steps = between
		fix = "running `" + strings.Join(between, "`, `") + "`, then " + fix
	}
	if saysFix(req.Error, steps) {
		return Block{}, nil
	}
	when := "earlier in this session " + carryover.ShortID(it.SessionID) + ", before a compaction"
	if it.SessionID != req.SessionID {
		when = "session " + carryover.ShortID(it.SessionID)
		if !it.Time.IsZero() {
			when = it.Time.Format("2006-01-02") + ", " + when
		}
	}
	root := req.Project
	var b strings.Builder
	fmt.Fprintf(&b, "carryover: this failed before (%s, L%d): %s\n", when, it.Line, clip(oneLine(shown), 200))
	fmt.Fprintf(&b, "Fixed by (L%d): %s\n", fixLine, clip(relPaths(shortCommands(oneLine(fix)), root), 380))
	if why != "" {
		room := FailureBudget - b.Len() - len("Why: \n")
		if room > 40 {
			fmt.Fprintf(&b, "Why: %s\n", clip(why, room))
		}
	}
	blk.Text = clip(strings.TrimRight(b.String(), "\n"), FailureBudget)
	return blk, nil
}

// redirect is a shell redirection at the end of a command ("2>&1").
var redirect = regexp.MustCompile(`(\s+\d?>&?\d?\S*)+$`)

// saysFix reports whether the live error text already quotes every step
// of the fix ("Run 'mix format' to fix."): the recall would only repeat
// what the failed call just printed.
func saysFix(errText string, steps []string) bool {
	if len(errText) > MaxErrorText {
		errText = errText[:MaxErrorText]
	}
	errText = strings.ToLower(normSpace(errText))
	for _, s := range steps {
		s = strings.ToLower(normSpace(redirect.ReplaceAllString(strings.TrimSpace(s), "")))
		if len(s) < 4 || !strings.Contains(errText, s) {
			return false
		}
	}
	return len(steps) > 0
}

// fixedBy is the fix a resolved error item names in its Detail.
func fixedBy(it carryover.Item) string {
	rest, ok := strings.CutPrefix(it.Detail, "fixed by: ")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(rest, " — in "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// failureContext reads the chunks between the failure and its fix: the
// assistant's first words after the failure (the diagnosis), the chunk
// they are in, and the commands run before the fix other than the one
// that failed (trivial ones aside), at most two.
func failureContext(ctx context.Context, st carryover.Store, it carryover.Item, fixLine int, failedHead string) (why string, between []string, chunkID int64, err error) {
	if fixLine < it.Line {
		return "", nil, 0, nil
	}
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: it.SessionID, Turn: -1, FromLine: it.Line, ToLine: fixLine, Limit: 6})
	if err != nil {
		return "", nil, 0, fmt.Errorf("failure recall: chunks: %w", err)
	}
	// The error's own words locate it in the rendered text.
	probe := strings.TrimSpace(sigRegexps().exit.ReplaceAllString(strings.ToLower(it.Text), ""))
	probe, _, _ = strings.Cut(probe, " | ")
	probe = probe[:min(len(probe), 40)]
	seen := probe == ""
	for _, c := range cs {
		for line := range strings.Lines(c.Text) {
			if !seen {
				seen = strings.Contains(strings.ToLower(line), probe)
				continue
			}
			if t, ok := strings.CutPrefix(line, "Assistant: "); ok && why == "" && len(strings.TrimSpace(t)) > 10 {
				why, chunkID = oneLine(t), c.ID
			}
			if cmd, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "$ "); ok && len(between) < 2 {
				cmd, _, _ = strings.Cut(cmd, "  # ") // the call's description
				if head := chunk.CommandHead(cmd); head != failedHead && !inspects(cmd) && !slices.Contains(between, cmd) {
					between = append(between, clip(cmd, 120))
				}
			}
			if strings.HasPrefix(line, "$ ") && chunk.CommandHead(strings.TrimPrefix(line, "$ ")) == failedHead {
				return why, between, chunkID, nil // the passing run
			}
		}
	}
	return why, between, chunkID, nil
}

// inspects reports whether a command only looks at things (ls, grep, git
// status, git ls-files, ...): no fix.
func inspects(cmd string) bool {
	if trivialCommand(cmd) || chunk.ReadOnlyCommand(cmd) {
		return true
	}
	switch chunk.CommandHead(cmd) {
	case "git ls-files", "git rev-parse", "git remote", "git config", "git check-ignore", "git blame", "git grep":
		return true
	}
	return false
}

// shortCommands cuts the message of a commit command (a heredoc or a long
// -m), which says nothing about the fix.
func shortCommands(s string) string {
	if i := strings.Index(s, "$(cat <<"); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	if i := strings.Index(s, ` -m "`); i >= 0 && len(s)-i > 60 {
		return s[:i+60] + "…"
	}
	return s
}

// relPaths shortens the absolute paths under root in s to relative ones.
func relPaths(s, root string) string {
	return projectdir.TrimRoot(s, root)
}
