package web

import (
	"reflect"
	"testing"
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
