package chunk

import "strings"

// ErrorText is the text of the error item the chunker extracts from a
// failed tool call's result (the tool_result text, or a hook's "error"
// field, which holds the same): failure recall compares a live failure
// with archived ones through it, so both sides go through one
// summariser. It returns "" for a call the user declined, which is no
// error. The caller bounds the result's size: every line is read.
func ErrorText(result string) string {
	_, code, out := status("", cleanResult(result), true)
	if strings.HasPrefix(out, rejectPrefix) {
		return ""
	}
	return errorSummary(out, code)
}

// ErrorLines returns every line of a failed tool result that an error
// summary could pick (ErrorText joins the first SummaryLines of them), in
// order, without repeats, at most max: a failure printed again deep in a
// longer output (other tests failing first) is recognised by them.
func ErrorLines(result string, max int) []string {
	_, _, out := status("", cleanResult(result), true)
	return errorLines(out, max)
}

// CommandHead is what the chunker keeps of a shell command to tell one
// command from another: the program and its subcommand ("git push",
// "mix test"), past a leading cd and environment assignments.
func CommandHead(cmd string) string { return commandHead(cmd) }

// ReadOnlyCommand reports whether a shell command only inspects (git
// status, grep, find, ...): the chunker weighs such commands less.
func ReadOnlyCommand(cmd string) bool {
	head := commandHead(cmd)
	prog, _, _ := strings.Cut(head, " ")
	return readOnlyCommands[head] || readOnlyCommands[prog]
}
