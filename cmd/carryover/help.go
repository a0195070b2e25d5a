package main

import (
	_ "embed"
	"fmt"
	"io"

	"github.com/carryover-dev/carryover/internal/cmdhelp"
)

// helpText documents every command (see its head for the format). It is
// text, not code, so that help reads as it prints.
//
//go:embed help.txt
var helpText string

func commandHelp() []cmdhelp.Command { return cmdhelp.Parse(helpText) }

// noFlagSet are the commands that parse no flags of their own: their help
// is printed before they run.
func noFlagSet(cmd string) bool {
	return cmd == "hook" || cmd == "version" || cmd == "help" || cmd == "bench"
}

func isHelpArg(s string) bool {
	return s == "-h" || s == "-help" || s == "--help"
}

// writeUsage prints the overview 'carryover help' shows.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "carryover keeps what Claude Code's compaction forgets.\n\nUsage: carryover [--db PATH] <command> [arguments]\n\nCommands:\n")
	cmdhelp.WriteList(w, commandHelp())
	fmt.Fprint(w, `
Global flags:
  --db PATH      the SQLite store (env CARRYOVER_DB; default $XDG_DATA_HOME/carryover/carryover.db);
                 with database_url (env CARRYOVER_DATABASE_URL) set, the PostgreSQL server is used instead
                 and this file is the hooks' spool while the server is unreachable; --db forces the file
  --version, -v  print the version

'carryover help COMMAND' or 'carryover COMMAND --help' explains a command.
`)
}
