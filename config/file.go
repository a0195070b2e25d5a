package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	// go-toml/v2 rather than BurntSushi/toml: its parser gives the line of
	// every key (unstable.Parser and Shape), which the sources doctor shows
	// and the refused-key warnings need; BurntSushi keeps key positions
	// private and reports them only in its own type errors. Both decode the
	// values to the same Go types.
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/carryover-dev/carryover/internal/smallfile"
)

// maxFileBytes caps a config file: hooks read the project's on every run,
// and a repository decides what that file is.
const maxFileBytes = 64 << 10

// readFile reads a config file. A missing file is no error (ok false). A
// FIFO, device or directory in its place is refused without blocking.
func readFile(path string) (data []byte, ok bool, err error) {
	data, truncated, err := smallfile.Read(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if truncated {
		return nil, false, fmt.Errorf("larger than %d KiB", maxFileBytes>>10)
	}
	return data, true, nil
}

// entry is one top-level key of a file (or table: carryover has none, so
// a table is an unknown key) with the line it starts on.
type entry struct {
	key  string
	line int
	val  any // as go-toml decodes it: string, int64, float64, bool, []any, map[string]any, a date or time
}

// syntaxError is a file that is not valid TOML.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return e.msg }

// parse decodes a TOML document into its top-level entries, in file
// order.
func parse(data []byte) ([]entry, error) {
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &syntaxError{line: line, msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &syntaxError{msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	// The values come from Unmarshal; the parser only says where each
	// top-level key starts. Keys after a table header belong to the table.
	var p unstable.Parser
	p.Reset(data)
	var out []entry
	seen := map[string]bool{}
	inTable := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			if inTable {
				continue
			}
		case unstable.Table, unstable.ArrayTable:
			inTable = true
		default:
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		k := it.Node()
		name := string(k.Data)
		if seen[name] { // a.b = 1 then a.c = 2, or [[t]] twice
			continue
		}
		seen[name] = true
		out = append(out, entry{key: name, line: p.Shape(k.Raw).Start.Line, val: m[name]})
	}
	if err := p.Error(); err != nil {
		return nil, &syntaxError{msg: err.Error()}
	}
	return out, nil
}
