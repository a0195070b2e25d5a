package claudesettings

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// MCP servers are registered the way `claude mcp add` does it, but with
// the same byte-stable editing as hooks. Claude Code 2.1 reads them from
// three places and never from settings.json:
//
//   - user scope: "mcpServers" in its own state file, ~/.claude.json;
//   - local scope: "projects" → <project key> → "mcpServers" in that file,
//     the key being the project's git root (else its directory);
//   - project scope: "mcpServers" in <project>/.mcp.json, meant to be
//     committed; the interactive CLI asks once before starting such a
//     server, print mode (-p) starts it without asking.
//
// ~/.claude.json is rewritten by Claude Code all the time. It is edited
// under Claude Code's own lock (<file>.lock), and only carryover's entry
// ever changes in it.

// MCPName is the name carryover's server is registered under: Claude Code
// offers its tools to the model as mcp__carryover__<tool>.
const MCPName = "carryover"

// MCPServer is a stdio MCP server entry.
type MCPServer struct {
	Command string
	Args    []string
}

// CarryoverMCP is the entry of carryover's server run by exe: the absolute
// path of the binary, or for a committed .mcp.json a command name that
// resolves on PATH ("carryover").
func CarryoverMCP(exe string) MCPServer {
	return MCPServer{Command: exe, Args: []string{"mcp"}}
}

// IsOurMCP reports whether s runs carryover's MCP server: a program named
// carryover (any directory or version) whose first argument is "mcp".
func IsOurMCP(s MCPServer) bool {
	base := filepath.Base(s.Command)
	return (base == "carryover" || base == "carryover.exe") && len(s.Args) > 0 && s.Args[0] == "mcp"
}

// MCPTarget is where Claude Code reads one scope's MCP servers: the
// "mcpServers" object of the JSON file Path, inside the objects the keys
// At lead to from the top (none for the top level).
type MCPTarget struct {
	Scope string
	Path  string
	At    []string
	// claudeConfig: the file is Claude Code's own state file.
	claudeConfig bool
}

// MCPLocation returns where a scope's MCP servers live: for "user"
// ~/.claude.json (configDir/.claude.json when $CLAUDE_CONFIG_DIR is set,
// or a legacy .config.json if one exists, as Claude Code picks it), for
// "local" that file's entry of the project, for "project"
// projectDir/.mcp.json.
func MCPLocation(scope, home, configDir, projectDir string) (MCPTarget, error) {
	switch scope {
	case "user", "local":
		dir := configDir
		if dir == "" {
			if home == "" {
				return MCPTarget{}, errors.New("no home directory")
			}
			dir = home
		}
		path := filepath.Join(dir, ".claude.json")
		legacyDir := configDir
		if legacyDir == "" {
			legacyDir = filepath.Join(home, ".claude")
		}
		if _, err := os.Stat(filepath.Join(legacyDir, ".config.json")); err == nil {
			path = filepath.Join(legacyDir, ".config.json")
		}
		t := MCPTarget{Scope: scope, Path: path, claudeConfig: true}
		if scope == "local" {
			if projectDir == "" {
				return MCPTarget{}, errors.New("no project directory")
			}
			t.At = []string{"projects", projectKey(projectDir)}
		}
		return t, nil
	case "project":
		if projectDir == "" {
			return MCPTarget{}, errors.New("no project directory")
		}
		return MCPTarget{Scope: scope, Path: filepath.Join(projectDir, ".mcp.json")}, nil
	}
	return MCPTarget{}, fmt.Errorf("unknown scope %q: want user, project or local", scope)
}

// projectKey is how Claude Code names a project in ~/.claude.json: the
// root of the git work tree holding dir, else dir itself.
func projectKey(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// LoadMCP loads the file of an MCP target for editing, like [Load]. Saving
// Claude Code's state file takes Claude Code's lock; a new .mcp.json is
// created readable by all, like the one `claude mcp add` writes.
func LoadMCP(t MCPTarget) (*File, error) {
	f, err := Load(t.Path)
	if err != nil {
		return nil, err
	}
	if t.claudeConfig {
		f.lock = t.Path + ".lock"
	} else if !f.existed {
		f.mode = 0o644
	}
	return f, nil
}

// mcpServers returns the "mcpServers" object at at and its JSON pointer,
// or nil when it or an object leading to it is missing. Something there
// that is not an object, or a repeated key on the way, is ErrParse.
func (f *File) mcpServers(at []string) (*node, string, error) {
	n, ptr := f.root, ""
	for _, key := range append(slices.Clip(at), "mcpServers") {
		if n == nil {
			return nil, "", nil
		}
		child, err := f.member(n, key)
		if err != nil {
			return nil, "", err
		}
		if child != nil && child.kind != kindObject {
			return nil, "", fmt.Errorf("%w: %v", ErrParse, errorAt(f.src, child.start, "%q must be an object", key))
		}
		n, ptr = child, pointer(ptr, key)
	}
	return n, ptr, nil
}

// member returns the value of key in object obj, refusing a repeated key.
func (f *File) member(obj *node, key string) (*node, error) {
	if err := unique(f.src, obj, key); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	n, _ := obj.last(key)
	return n, nil
}

// MCP returns the server registered as name at at. ok is false when there
// is none; err is ErrParse when the file's shape is not what Claude Code
// reads.
func (f *File) MCP(at []string, name string) (srv MCPServer, ok bool, err error) {
	if f.root == nil {
		return MCPServer{}, false, nil
	}
	servers, _, err := f.mcpServers(at)
	if err != nil || servers == nil {
		return MCPServer{}, false, err
	}
	n, err := f.member(servers, name)
	if err != nil || n == nil {
		return MCPServer{}, false, err
	}
	return f.decodeServer(n), true, nil
}

// decodeServer reads a server entry; what is missing or odd stays empty.
func (f *File) decodeServer(n *node) MCPServer {
	var s MCPServer
	if n.kind != kindObject {
		return s
	}
	cmd, _ := n.last("command")
	s.Command, _ = cmd.str(f.src)
	if args, _ := n.last("args"); args != nil && args.kind == kindArray {
		for _, a := range args.elems {
			v, _ := a.str(f.src)
			s.Args = append(s.Args, v)
		}
	}
	return s
}

// hasOurMCP reports whether carryover's server is registered anywhere in
// the file: at the top or for any project.
func (f *File) hasOurMCP() bool {
	if f.root == nil || f.root.kind != kindObject {
		return false
	}
	ours := func(obj *node) bool {
		servers, _ := obj.last("mcpServers")
		if servers == nil || servers.kind != kindObject {
			return false
		}
		for _, m := range servers.members {
			if IsOurMCP(f.decodeServer(m.val)) {
				return true
			}
		}
		return false
	}
	if ours(f.root) {
		return true
	}
	if projects, _ := f.root.last("projects"); projects != nil && projects.kind == kindObject {
		for _, m := range projects.members {
			if m.val.kind == kindObject && ours(m.val) {
				return true
			}
		}
	}
	return false
}

// InstallMCP registers srv, which must be carryover's, as name at at: it
// adds the entry (and the objects leading to it), or updates an older
// carryover entry in place. A server of that name that is not carryover's
// is an error. Everything else stays as it was; a second InstallMCP with
// the same server changes nothing.
func (f *File) InstallMCP(at []string, name string, srv MCPServer) (changed bool, err error) {
	if name == "" || !IsOurMCP(srv) {
		return false, fmt.Errorf("install: %q %q is not carryover's MCP server", srv.Command, srv.Args)
	}
	args := make([]any, len(srv.Args))
	for i, a := range srv.Args {
		args[i] = a
	}
	entry := object{{"type", "stdio"}, {"command", srv.Command}, {"args", args}}
	before := f.src
	if err := f.create(); err != nil {
		return false, err
	}
	err = f.steps(func() (bool, error) {
		if f.root.kind != kindObject {
			return false, fmt.Errorf("%w: %v", ErrParse, errorAt(f.src, f.root.start, "want a JSON object"))
		}
		// Find the deepest object on the way that exists.
		path := append(slices.Clip(at), "mcpServers")
		n, ptr := f.root, ""
		for i, key := range path {
			child, err := f.member(n, key)
			if err != nil {
				return false, err
			}
			if child == nil {
				var v any = object{{name, entry}}
				for j := len(path) - 1; j > i; j-- {
					v = object{{path[j], v}}
				}
				return true, f.insert(n, ptr, key, v)
			}
			if child.kind != kindObject {
				return false, fmt.Errorf("%w: %v", ErrParse, errorAt(f.src, child.start, "%q must be an object", key))
			}
			n, ptr = child, pointer(ptr, key)
		}
		cur, err := f.member(n, name)
		if err != nil {
			return false, err
		}
		if cur == nil {
			return true, f.insert(n, ptr, name, entry)
		}
		old := f.decodeServer(cur)
		if !IsOurMCP(old) {
			return false, fmt.Errorf("install: MCP server %q is already registered and runs %q, not carryover; remove it first (claude mcp remove %s)", name, old.Command, name)
		}
		if old.Command == srv.Command && slices.Equal(old.Args, srv.Args) {
			return false, nil
		}
		// An entry from an older install: replace it whole.
		pretty := bytes.ContainsRune(f.src[n.start:n.end], '\n')
		return true, f.splice(cur.start, cur.end, f.style.format(entry, lineIndent(f.src, cur.start), pretty))
	})
	if err != nil {
		return false, err
	}
	return !bytes.Equal(before, f.src), nil
}

// UninstallMCP removes carryover's server registered as name at at, and
// the objects that leaves empty (or puts back the empty object an install
// filled). A server of that name that is not carryover's is left alone.
func (f *File) UninstallMCP(at []string, name string) (changed bool, err error) {
	before := f.src
	err = f.steps(func() (bool, error) {
		srv, ok, err := f.MCP(at, name)
		if err != nil || !ok || !IsOurMCP(srv) {
			return false, err
		}
		return true, f.removeMember(append(slices.Clip(at), "mcpServers"), name)
	})
	return !bytes.Equal(before, f.src), err
}

// removeMember deletes member key of the object the keys path lead to, and
// the objects that leaves empty, like [File.remove] does for hooks.
func (f *File) removeMember(path []string, key string) error {
	nodes, idx := []*node{f.root}, []int{}
	for _, k := range append(slices.Clip(path), key) {
		n, i := nodes[len(nodes)-1].last(k)
		if n == nil {
			return nil
		}
		nodes, idx = append(nodes, n), append(idx, i)
	}
	ptr := func(level int) string {
		p := ""
		for _, k := range path[:level] {
			p = pointer(p, k)
		}
		return p
	}
	// nodes[level] is the object path[:level] leads to; nodes[level+1]
	// is its member idx[level], the one to go.
	for level := len(path); level >= 0; level-- {
		c := nodes[level]
		if c.len() > 1 {
			return f.removeItem(c, idx[level])
		}
		// c empties: put back what it was, or drop it from its parent.
		p := ptr(level)
		if text, ok := f.state.Empty[p]; ok && emptyOf(text, c.kind) {
			f.state.forget(p)
			return f.splice(c.start, c.end, text)
		}
		if level == 0 {
			return f.splice(c.start, c.end, "{}")
		}
	}
	return nil
}
