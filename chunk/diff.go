package chunk

import "strings"

// editDiff renders an edit as what it changed, added and changed lines
// first: a value an edit introduces (a new port, a renamed function) is
// then near the head of the chunk, where search and the restore see it,
// rather than after the whole old text. Lines the old and the new text
// share at their start and end are left out.
func editDiff(oldText, newText string, addCap, delCap int) string {
	olds := strings.Split(strings.TrimRight(oldText, "\n"), "\n")
	news := strings.Split(strings.TrimRight(newText, "\n"), "\n")
	if oldText == "" {
		olds = nil
	}
	if newText == "" {
		news = nil
	}
	i := 0
	for i < len(olds) && i < len(news) && olds[i] == news[i] {
		i++
	}
	j := 0
	for j < len(olds)-i && j < len(news)-i && olds[len(olds)-1-j] == news[len(news)-1-j] {
		j++
	}
	added, removed := news[i:len(news)-j], olds[i:len(olds)-j]
	var b strings.Builder
	write := func(prefix string, lines []string, limit int) {
		if len(lines) == 0 {
			return
		}
		var s strings.Builder
		for _, l := range lines {
			s.WriteString(prefix)
			s.WriteString(l)
			s.WriteByte('\n')
		}
		b.WriteString(headTail(strings.TrimRight(s.String(), "\n"), limit*3/4, limit/4))
		b.WriteByte('\n')
	}
	write("+ ", added, addCap)
	write("- ", removed, delCap)
	if len(added) == 0 && len(removed) == 0 {
		return "(no change)"
	}
	return strings.TrimRight(b.String(), "\n")
}
