package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// MigrateLegacy merges the hooks of an old-style hooks file (such as
// ~/.claude/hooks.json, either {"hooks": {<event>: [...]}} or the bare
// event map) into f. Each matcher group is appended as it is, minus hooks f
// already has for the same event and matcher and minus carryover's own
// entries (Install adds the current ones). A missing file changes nothing.
// The caller saves f and then renames the old file with RenameMigrated.
func MigrateLegacy(hooksPath string, f *File) (changed bool, err error) {
	data, err := os.ReadFile(hooksPath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	root, err := parse(data)
	if err == nil && root.kind != kindObject {
		err = errorAt(data, root.start, "want a JSON object")
	}
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrParse, err)
	}
	events := root
	if h, _ := root.last("hooks"); h != nil && h.kind == kindObject {
		events = h
	}
	before := f.src
	for _, m := range events.members {
		if m.val.kind != kindArray {
			return false, fmt.Errorf("%w: %w", ErrParse, errorAt(data, m.val.start, "hooks %q must be an array", m.key))
		}
		for _, g := range m.val.elems {
			group, ok := f.legacyGroup(data, m.key, g)
			if !ok {
				continue
			}
			if f.src == nil {
				if err := f.splice(0, 0, "{}"+f.style.nl); err != nil {
					return false, err
				}
				f.state.Created = true
			}
			if err := f.appendGroup(m.key, group); err != nil {
				return false, err
			}
		}
	}
	return !bytes.Equal(before, f.src), nil
}

// legacyGroup converts matcher group g of event into a value to append:
// the group as it is, with only the hooks f lacks; false if none are left.
func (f *File) legacyGroup(src []byte, event string, g *node) (object, bool) {
	if g.kind != kindObject {
		return nil, false
	}
	arr, _ := g.last("hooks")
	if arr == nil || arr.kind != kindArray {
		return nil, false
	}
	matcher := ""
	if mn, _ := g.last("matcher"); mn != nil {
		s, ok := mn.str(src)
		if !ok {
			return nil, false
		}
		matcher = s
	}
	have := map[string]bool{}
	for _, r := range f.entries() {
		if r.event == event && !r.odd && normMatcher(r.matcher) == normMatcher(matcher) {
			have[hookKey(f.src, r.hook)] = true
		}
	}
	var keep []any
	for _, h := range arr.elems {
		if h.kind != kindObject {
			continue
		}
		cmd, _ := h.last("command")
		s, _ := cmd.str(src)
		args, bad := readArgs(src, h)
		if ours := !bad && (Hook{Command: s, Args: args}).isOurs(); ours || have[hookKey(src, h)] {
			continue
		}
		have[hookKey(src, h)] = true
		keep = append(keep, toValue(src, h))
	}
	if len(keep) == 0 {
		return nil, false
	}
	var group object
	for i, m := range g.members {
		if m.key == "hooks" {
			if _, last := g.last("hooks"); i == last {
				group = append(group, field{"hooks", keep})
			}
			continue
		}
		group = append(group, field{m.key, toValue(src, m.val)})
	}
	return group, true
}

// hookKey identifies a hook for deduplication: its command (and exec
// form's arguments), or for hooks without one, its JSON without
// whitespace.
func hookKey(src []byte, h *node) string {
	cmd, _ := h.last("command")
	if s, ok := cmd.str(src); ok {
		if args, bad := readArgs(src, h); args != nil || bad {
			a, _ := h.last("args")
			var b bytes.Buffer
			_ = json.Compact(&b, src[a.start:a.end]) // valid: parsed already
			return "command\x00" + s + "\x00args\x00" + b.String()
		}
		return "command\x00" + s
	}
	var b bytes.Buffer
	if json.Compact(&b, src[h.start:h.end]) != nil {
		return string(src[h.start:h.end])
	}
	return b.String()
}

// toValue copies a parsed value, keeping key order and scalar spelling.
func toValue(src []byte, n *node) any {
	switch n.kind {
	case kindObject:
		o := object{}
		for _, m := range n.members {
			o = append(o, field{m.key, toValue(src, m.val)})
		}
		return o
	case kindArray:
		a := []any{}
		for _, e := range n.elems {
			a = append(a, toValue(src, e))
		}
		return a
	}
	return raw(src[n.start:n.end])
}

// appendGroup appends a matcher group to event, creating what is missing.
func (f *File) appendGroup(event string, group object) error {
	hooks, _ := f.root.last("hooks")
	if hooks == nil {
		return f.insert(f.root, "", "hooks", object{{event, []any{group}}})
	}
	ev, _ := hooks.last(event)
	if ev == nil {
		return f.insert(hooks, "/hooks", event, []any{group})
	}
	return f.insert(ev, pointer("/hooks", event), "", group)
}

// RenameMigrated renames a migrated hooks file to <path>.migrated (or
// .migrated.2, … if that exists), so Claude Code and carryover ignore it but
// it stays at hand.
func RenameMigrated(path string) error {
	for i := 1; i < 100; i++ {
		target := path + ".migrated"
		if i > 1 {
			target = fmt.Sprintf("%s.%d", target, i)
		}
		if _, err := os.Lstat(target); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.Rename(path, target)
	}
	return fmt.Errorf("rename %s: too many .migrated files", path)
}
