package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/bench"
	"github.com/carryover-dev/carryover/stats"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// TestJSONKeysSnakeCase: every --json output uses snake_case keys. It
// walks the types the commands encode; a field without a json tag would
// come out as Go's field name (Fired, MeanUseful).
func TestJSONKeysSnakeCase(t *testing.T) {
	for _, v := range []any{
		jsonChunk{}, jsonLine{}, stats.Report{},
		bench.JITResult{}, bench.JITChoice{}, bench.NeededRow{}, bench.NeededSummary{}, bench.SurvivalScore{}, bench.RecallResult{}, bench.LatencyRow{}, bench.ScaleResult{},
	} {
		typ := reflect.TypeOf(v)
		for _, bad := range badKeys(typ, typ.Name(), map[reflect.Type]bool{}) {
			t.Errorf("%s: key %s", typ, bad)
		}
	}
}

var marshaler = reflect.TypeFor[json.Marshaler]()

func badKeys(typ reflect.Type, path string, seen map[reflect.Type]bool) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] || typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
		return nil
	}
	seen[typ] = true
	var bad []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && f.Anonymous {
			bad = append(bad, badKeys(f.Type, path, seen)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !snakeKey.MatchString(name) {
			bad = append(bad, path+"."+name)
		}
		bad = append(bad, badKeys(f.Type, path+"."+name, seen)...)
	}
	return bad
}
