package web

import (
	"reflect"
	"testing"

	"github.com/carryover-dev/carryover"
)

func TestHighlight(t *testing.T) {
	terms := queryTerms("HTTP, fix <b>")
	got := highlight("Fix parseHTTPResponse <b>now</b>; prefix stays", terms)
	want := []segment{
		{Text: "Fix", Mark: true}, {Text: " "}, {Text: "parseHTTPResponse", Mark: true}, {Text: " <"},
		{Text: "b", Mark: true}, {Text: ">now</"}, {Text: "b", Mark: true}, {Text: ">; prefix stays"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := highlight("héllo wörld", queryTerms("WÖRLD")); !reflect.DeepEqual(got, []segment{{Text: "héllo "}, {Text: "wörld", Mark: true}}) {
		t.Errorf("non-ASCII: %+v", got)
	}
	if got := highlight("", terms); got != nil {
		t.Errorf("empty: %+v", got)
	}
}

func TestBrief(t *testing.T) {
	c := carryover.Chunk{Prompt: "I need PDF export  for invoices: a way", Summary: "I need PDF export for invoic… | Let me look"}
	if got := brief(c); got != "Let me look" {
		t.Errorf("brief = %q", got)
	}
	c.Summary = "Something else | with a bar"
	if got := brief(c); got != c.Summary {
		t.Errorf("brief of a summary without the prompt = %q", got)
	}
}
