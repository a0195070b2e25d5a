package claudesettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"
)

// File is a settings file loaded for editing. Its methods change the
// content in memory; [File.Save] writes it.
type File struct {
	path    string
	existed bool
	mode    fs.FileMode
	orig    []byte // as loaded; nil if the file did not exist
	src     []byte // as edited; nil while a missing file stays missing
	root    *node
	style   style
	state   state
	now     func() time.Time
	lock    string // the lock directory Save takes, if any
	backup  string // where Save keeps the one backup of the file, if set
}

// Load reads the settings file at path. Errors do not repeat the path. A missing file is fine
// (Exists reports false). A symlink is refused with ErrSymlink; content that
// is not a JSON object, a "hooks" that is not an object, an event in it
// that is not an array, or a repeated "hooks" or event key is refused with
// ErrParse and the position.
func Load(path string) (*File, error) {
	f := &File{path: path, mode: 0o600, now: time.Now}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.style = detectStyle(nil, nil)
		return f, nil
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, ErrSymlink
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := f.load(data); err != nil {
		return nil, err
	}
	f.mode = fi.Mode().Perm()
	if f.hasOurs() {
		// A sidecar only describes a file that carryover's entries are in;
		// a stale one (entries removed by hand) must not delete the file.
		f.state = readState(stateFile(path))
	}
	return f, nil
}

// load takes data as the file's existing content.
func (f *File) load(data []byte) error {
	root, err := parseSettings(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrParse, err)
	}
	f.existed, f.orig, f.src, f.root = true, data, bytes.Clone(data), root
	f.style = detectStyle(data, root)
	return nil
}

// parseSettings parses src and checks the shape carryover relies on.
func parseSettings(src []byte) (*node, error) {
	root, err := parse(src)
	if err != nil {
		return nil, err
	}
	if root.kind != kindObject {
		return nil, errorAt(src, root.start, "want a JSON object")
	}
	if err := unique(src, root, "hooks"); err != nil {
		return nil, err
	}
	hooks, _ := root.last("hooks")
	if hooks == nil {
		return root, nil
	}
	if hooks.kind != kindObject {
		return nil, errorAt(src, hooks.start, `"hooks" must be an object`)
	}
	if err := unique(src, hooks, ""); err != nil {
		return nil, err
	}
	for _, m := range hooks.members {
		if m.val.kind != kindArray {
			return nil, errorAt(src, m.val.start, "hooks %q must be an array", m.key)
		}
	}
	return root, nil
}

// unique refuses a repeated key (only key, if given): which one Claude Code
// reads would be a guess.
func unique(src []byte, obj *node, key string) error {
	seen := map[string]bool{}
	for _, m := range obj.members {
		if key != "" && m.key != key {
			continue
		}
		if seen[m.key] {
			return errorAt(src, m.keyStart, "repeated key %q", m.key)
		}
		seen[m.key] = true
	}
	return nil
}

// SetBackup makes Save keep the previous content in the file at path,
// replacing the backup an earlier save left there: one backup per
// settings file, outside the project, instead of a timestamped one beside
// the file per save.
func (f *File) SetBackup(path string) { f.backup = path }

// CheckWritable returns an error wrapping ErrReadOnly when the file exists
// and its mode does not let its owner write it, and one wrapping
// ErrNotOwner when Save could not keep its owner. Save refuses such a file;
// callers that save several files check them all first, so that nothing
// is changed.
func (f *File) CheckWritable() error {
	if !f.existed {
		return nil
	}
	fi, err := os.Lstat(f.path)
	if err != nil {
		return nil // Save reports what happened to it
	}
	if fi.Mode().IsRegular() {
		return replaceable(fi)
	}
	return nil
}

// replaceable refuses to replace a regular file that is read-only or whose
// owner the replacement could not keep.
func replaceable(fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%w (mode %04o)", ErrReadOnly, fi.Mode().Perm())
	}
	return checkOwner(fi)
}

// Exists reports whether the file existed when it was loaded.
func (f *File) Exists() bool { return f.existed }

// Bytes is the edited content (nil for a missing file nothing was added to,
// and for a file Save will remove).
func (f *File) Bytes() []byte {
	if f.removes() {
		return nil
	}
	return f.src
}

// Removes reports whether Save will delete the file: carryover created it
// and an uninstall left nothing in it.
func (f *File) Removes() bool { return f.removes() && f.existed }

func (f *File) removes() bool {
	return f.state.Created && f.root != nil && f.root.len() == 0
}

// Diff is a unified diff from the loaded content to the edited one, or ""
// if they are the same.
func (f *File) Diff() string {
	oldName, newName := f.path, f.path
	if !f.existed {
		oldName = "/dev/null"
	}
	if f.Bytes() == nil {
		newName = "/dev/null"
	}
	return string(diff.Diff(oldName, f.orig, newName, f.Bytes()))
}

// ref locates one hook entry: hooks[event][gi].hooks[hi].
type ref struct {
	hooks   *node // the "hooks" object
	evIdx   int   // member index of the event in hooks
	event   string
	ev      *node // the event's array of matcher groups
	gi      int
	matcher string
	odd     bool  // matcher is neither absent nor a string
	arr     *node // the group's "hooks" array
	hi      int
	hook    *node
	command string
	args    []string // exec form's arguments; nil in shell form
	badArgs bool     // "args" is there but not an array of strings
}

// asHook is the entry as a Hook, without its event's details.
func (r ref) asHook() Hook { return Hook{Command: r.command, Args: r.args} }

// readArgs reads a hook entry's "args": nil when there is none.
func readArgs(src []byte, h *node) (args []string, bad bool) {
	a, _ := h.last("args")
	if a == nil {
		return nil, false
	}
	if a.kind != kindArray {
		return nil, true
	}
	args = []string{}
	for _, e := range a.elems {
		s, ok := e.str(src)
		if !ok {
			return nil, true
		}
		args = append(args, s)
	}
	return args, false
}

func (r ref) key() string { return r.event + "\x00" + normMatcher(r.matcher) }

// normMatcher maps the match-everything spellings to "".
func normMatcher(m string) string {
	if m == "*" {
		return ""
	}
	return m
}

// entries lists every hook entry, in file order.
func (f *File) entries() []ref {
	if f.root == nil {
		return nil
	}
	hooks, _ := f.root.last("hooks")
	if hooks == nil {
		return nil
	}
	var refs []ref
	for ei, m := range hooks.members {
		for gi, g := range m.val.elems {
			if g.kind != kindObject {
				continue
			}
			arr, _ := g.last("hooks")
			if arr == nil || arr.kind != kindArray {
				continue
			}
			r := ref{hooks: hooks, evIdx: ei, event: m.key, ev: m.val, gi: gi, arr: arr}
			if mn, _ := g.last("matcher"); mn != nil {
				r.matcher, r.odd = "", true
				if s, ok := mn.str(f.src); ok {
					r.matcher, r.odd = s, false
				}
			}
			for hi, h := range arr.elems {
				if h.kind != kindObject {
					continue
				}
				r.hi, r.hook = hi, h
				cmd, _ := h.last("command")
				r.command, _ = cmd.str(f.src)
				r.args, r.badArgs = readArgs(f.src, h)
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// ours lists carryover's entries.
func (f *File) ours() []ref {
	var refs []ref
	for _, r := range f.entries() {
		if !r.badArgs && r.asHook().isOurs() {
			refs = append(refs, r)
		}
	}
	return refs
}

// Ours lists the carryover hooks present, in file order.
func (f *File) Ours() []Hook {
	var hooks []Hook
	for _, r := range f.ours() {
		hooks = append(hooks, f.hookOf(r))
	}
	return hooks
}

// Others lists the command hooks that are not carryover's, in file order.
func (f *File) Others() []Hook {
	var hooks []Hook
	for _, r := range f.entries() {
		if t, _ := r.hook.last("type"); t != nil {
			if s, _ := t.str(f.src); s != "command" {
				continue
			}
		}
		if r.badArgs || !r.asHook().isOurs() {
			hooks = append(hooks, f.hookOf(r))
		}
	}
	return hooks
}

// hookOf reads entry r.
func (f *File) hookOf(r ref) Hook {
	h := Hook{Event: r.event, Matcher: r.matcher, Command: r.command, Args: r.args}
	if t, _ := r.hook.last("timeout"); t != nil && t.kind == kindScalar {
		if v, err := strconv.ParseFloat(string(f.src[t.start:t.end]), 64); err == nil {
			h.Timeout = int(v)
		}
	}
	if a, _ := r.hook.last("async"); a != nil && a.kind == kindScalar {
		h.Async = string(f.src[a.start:a.end]) == "true"
	}
	return h
}

// maxSteps bounds the edit loops; each step is one splice, and no real
// install needs more than a few per hook.
const maxSteps = 10000

// Install makes carryover's entries in the file exactly hooks: an entry
// already there for the same event and matcher (an older carryover, another
// path) is updated in place, a missing one is appended as a matcher group of
// its own, and any other carryover entry is removed. Everything else stays
// as it was. A second Install with the same hooks changes nothing.
func (f *File) Install(hooks []Hook) (changed bool, err error) {
	want := map[string]bool{}
	for _, h := range hooks {
		if h.Event == "" || !h.isOurs() {
			return false, fmt.Errorf("install: %q for %q is not a carryover hook command", h.Command, h.Event)
		}
		k := h.Event + "\x00" + normMatcher(h.Matcher)
		if want[k] {
			return false, fmt.Errorf("install: two hooks for %s matcher %q", h.Event, h.Matcher)
		}
		want[k] = true
	}
	before := f.src
	if err := f.create(); err != nil {
		return false, err
	}
	for _, h := range hooks {
		if err := f.steps(func() (bool, error) { return f.ensure(h) }); err != nil {
			return false, err
		}
	}
	// Drop every other carryover entry: duplicates, other matchers, events
	// no longer wanted. The first entry per event and matcher is the one
	// ensure updated, so it stays.
	err = f.steps(func() (bool, error) {
		seen := map[string]bool{}
		for _, r := range f.ours() {
			if k := r.key(); want[k] && !r.odd && !seen[k] {
				seen[k] = true
				continue
			}
			return true, f.remove(r)
		}
		return false, nil
	})
	if err != nil {
		return false, err
	}
	return !bytes.Equal(before, f.src), nil
}

// create starts a missing file as an empty object; Save removes it again if
// an uninstall gets back to that.
func (f *File) create() error {
	if f.src != nil {
		return nil
	}
	if err := f.splice(0, 0, "{}"+f.style.nl); err != nil {
		return err
	}
	f.state.Created = true
	return nil
}

// hasOurs reports whether any carryover entry, hook, MCP server or status
// line, is in the file.
func (f *File) hasOurs() bool { return len(f.ours()) > 0 || f.hasOurMCP() || f.hasOurStatusLine() }

// Uninstall removes carryover's entries, and the matcher groups, event
// arrays and "hooks" object they leave empty (or puts back the empty
// container an install filled). Nothing else changes.
func (f *File) Uninstall() (changed bool, err error) {
	before := f.src
	err = f.steps(func() (bool, error) {
		if refs := f.ours(); len(refs) > 0 {
			return true, f.remove(refs[0])
		}
		return false, nil
	})
	return !bytes.Equal(before, f.src), err
}

// steps runs step until it reports no more work.
func (f *File) steps(step func() (bool, error)) error {
	for range maxSteps {
		more, err := step()
		if err != nil || !more {
			return err
		}
	}
	return errors.New("edit does not converge") // a bug, not a file problem
}

// ensure makes one edit towards h being present; false when it is.
func (f *File) ensure(h Hook) (bool, error) {
	group := object{}
	if h.Matcher != "" {
		group = append(group, field{"matcher", h.Matcher})
	}
	entry := object{{"type", "command"}, {"command", h.Command}}
	if h.Exec() {
		entry = append(entry, field{"args", inlineArgs(h.Args)})
	}
	if h.Timeout > 0 {
		entry = append(entry, field{"timeout", h.Timeout})
	}
	if h.Async {
		entry = append(entry, field{"async", true})
	}
	group = append(group, field{"hooks", []any{entry}})

	hooks, _ := f.root.last("hooks")
	if hooks == nil {
		return true, f.insert(f.root, "", "hooks", object{{h.Event, []any{group}}})
	}
	ev, _ := hooks.last(h.Event)
	if ev == nil {
		return true, f.insert(hooks, "/hooks", h.Event, []any{group})
	}
	for _, r := range f.ours() {
		if r.event != h.Event || r.odd || normMatcher(r.matcher) != normMatcher(h.Matcher) {
			continue
		}
		// An entry in the other form is replaced whole: changed a member
		// at a time, it would stop being carryover's halfway.
		if r.asHook().Exec() != h.Exec() {
			multiline := bytes.ContainsRune(f.src[r.hook.start:r.hook.end], '\n')
			return true, f.splice(r.hook.start, r.hook.end, f.style.format(entry, lineIndent(f.src, r.hook.start), multiline))
		}
		// An entry from an older install: bring it up to date in place,
		// one member at a time.
		if r.command != h.Command {
			cmd, _ := r.hook.last("command")
			return true, f.splice(cmd.start, cmd.end, quote(h.Command))
		}
		args, ai := r.hook.last("args")
		switch {
		case !h.Exec() && args != nil:
			return true, f.removeItem(r.hook, ai)
		case h.Exec() && args == nil:
			return true, f.insert(r.hook, untracked, "args", inlineArgs(h.Args))
		case h.Exec() && !slices.Equal(r.args, h.Args):
			return true, f.splice(args.start, args.end, f.style.format(inlineArgs(h.Args), "", false))
		}
		async, asi := r.hook.last("async")
		switch {
		case !h.Async && async != nil:
			return true, f.removeItem(r.hook, asi)
		case h.Async && async == nil:
			return true, f.insert(r.hook, untracked, "async", true)
		case h.Async && string(f.src[async.start:async.end]) != "true":
			return true, f.splice(async.start, async.end, "true")
		}
		t, _ := r.hook.last("timeout")
		switch {
		case h.Timeout <= 0:
		case t == nil:
			return true, f.insert(r.hook, untracked, "timeout", h.Timeout)
		case t.kind != kindScalar || !numberIs(f.src[t.start:t.end], h.Timeout):
			return true, f.splice(t.start, t.end, strconv.Itoa(h.Timeout))
		}
		return false, nil
	}
	return true, f.insert(ev, pointer("/hooks", h.Event), "", group)
}

// inlineArgs is args as a JSON array kept on one line.
func inlineArgs(args []string) inline {
	a := inline{}
	for _, s := range args {
		a = append(a, s)
	}
	return a
}

func numberIs(text []byte, n int) bool {
	v, err := strconv.ParseFloat(string(text), 64)
	return err == nil && v == float64(n)
}

// pointer appends key to a JSON pointer.
func pointer(parent, key string) string {
	return parent + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// untracked is the pointer of containers whose past needs no record.
const untracked = "-"

// insert adds v to container c at pointer ptr (as member key of an object).
// In a container with items it appends after the last one, with the same
// separator that precedes it, so removing the last item restores the bytes.
// An empty container is rewritten whole, and its old text is recorded so
// that an uninstall can put it back.
func (f *File) insert(c *node, ptr, key string, v any) error {
	item := func(indent string, pretty bool) string {
		s := f.style.format(v, indent, pretty)
		if key != "" {
			s = quote(key) + f.style.colon + s
		}
		return s
	}
	tracked := ptr != untracked
	if tracked && key != "" {
		f.state.forget(pointer(ptr, key)) // a container we create has no past
	}
	if c.len() == 0 {
		indent := lineIndent(f.src, c.start)
		var text string
		if c.kind == kindObject {
			text = f.style.format(object{{key, v}}, indent, f.style.pretty)
		} else {
			text = f.style.format([]any{v}, indent, f.style.pretty)
		}
		if tracked && (ptr != "" || f.existed && !f.state.Created) {
			f.state.remember(ptr, string(f.src[c.start:c.end]))
		}
		return f.splice(c.start, c.end, text)
	}
	last := c.len() - 1
	start := c.itemStart(last)
	sep := start
	for sep > 0 && isSpace(f.src[sep-1]) {
		sep--
	}
	ws := string(f.src[sep:start])
	pretty := strings.Contains(ws, "\n")
	if !pretty && last == 0 {
		// The space after an opening bracket says nothing about the space
		// after a comma: use the file's.
		ws = ""
		if f.style.colon == ": " {
			ws = " "
		}
	}
	indent := ws[strings.LastIndexByte(ws, '\n')+1:]
	if !pretty {
		indent = lineIndent(f.src, c.start)
	}
	end := c.itemEnd(last)
	return f.splice(end, end, ","+ws+item(indent, pretty))
}

// remove deletes entry r, and the containers that leaves empty.
func (f *File) remove(r ref) error {
	if r.arr.len() > 1 {
		return f.removeItem(r.arr, r.hi)
	}
	if r.ev.len() > 1 {
		return f.removeItem(r.ev, r.gi)
	}
	// The event array empties, then maybe "hooks", then maybe the document.
	_, hooksIdx := f.root.last("hooks")
	levels := []struct {
		c, parent *node
		ptr       string
		idx       int
	}{
		{r.ev, r.hooks, pointer("/hooks", r.event), r.evIdx},
		{r.hooks, f.root, "/hooks", hooksIdx},
		{f.root, nil, "", 0},
	}
	for _, l := range levels {
		if text, ok := f.state.Empty[l.ptr]; ok && emptyOf(text, l.c.kind) {
			f.state.forget(l.ptr)
			return f.splice(l.c.start, l.c.end, text)
		}
		if l.parent == nil {
			return f.splice(l.c.start, l.c.end, "{}")
		}
		if l.parent.len() > 1 {
			return f.removeItem(l.parent, l.idx)
		}
	}
	return nil
}

// removeItem deletes item i of a container holding more than one: the
// separator before it (the text an append added), or after it for the first.
func (f *File) removeItem(c *node, i int) error {
	if i > 0 {
		return f.splice(c.itemEnd(i-1), c.itemEnd(i), "")
	}
	return f.splice(c.itemStart(0), c.itemStart(1), "")
}

// splice replaces src[start:end] with text and parses the result again, so
// an edit that would break the file fails here instead of being saved.
func (f *File) splice(start, end int, text string) error {
	src := make([]byte, 0, len(f.src)-(end-start)+len(text))
	src = append(append(append(src, f.src[:start]...), text...), f.src[end:]...)
	root, err := parseSettings(src)
	if err != nil {
		return fmt.Errorf("edit produced invalid settings (a bug): %w", err)
	}
	f.src, f.root = src, root
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineIndent is the leading whitespace of the line holding offset off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := start
	for end < off && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// emptyOf reports whether text is an empty container of kind k.
func emptyOf(text string, k kind) bool {
	n, err := parse([]byte(text))
	return err == nil && n.kind == k && n.len() == 0 && n.start == 0 && n.end == len(text)
}
