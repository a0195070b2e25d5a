package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/cmdhelp"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/termsafe"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// app is one invocation: its streams, environment and configuration.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	start          time.Time
	dbFlag         string
	log            *slog.Logger
	logClose       func()
	logOut         slog.Handler     // the log file's handler, under the masking one (nil: no log)
	redactor       *redact.Redactor // built-in detectors and the configured patterns
	builtin        *redact.Redactor // built-in detectors alone (see builtinRedactor)
	// quietConfig keeps config problems off stderr (they are logged):
	// hooks and the status line print only what Claude Code expects.
	quietConfig bool
	// projectDir is the project the configuration was last loaded for
	// ("" for none): its Claude Code settings do not choose the log.
	projectDir string
	// logMu guards the log, the redactors and projectDir where two
	// goroutines may touch them: the status line loads its config while
	// its wrapped command's goroutine may open the log (logger).
	logMu sync.Mutex
	// cmd is the command run, flags the flag set it parses: help and
	// usage errors name them.
	cmd   string
	flags *flag.FlagSet
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, start: time.Now(),
		log: slog.New(slog.DiscardHandler), logClose: func() {}}
}

// run dispatches a command and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	defer func() { a.logClose() }()
	fs := flag.NewFlagSet("carryover", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.dbFlag, "db", "", "")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	showVersion := fs.Bool("version", false, "")
	fs.BoolVar(showVersion, "v", false, "")
	if err := fs.Parse(args); err != nil {
		return a.usageError(cmdhelp.FlagHint(fs, err.Error()))
	}
	args = fs.Args()
	if *showVersion {
		args = []string{"version"}
	}
	if *help || len(args) == 0 {
		writeUsage(a.stdout)
		return 0
	}
	cmd, rest := args[0], args[1:]
	a.cmd = cmd
	if len(rest) > 0 && isHelpArg(rest[0]) && noFlagSet(cmd) {
		cmdhelp.Write(a.stdout, commandHelp(), "carryover", cmd, nil)
		return 0
	}
	if cmd == "help" && len(rest) > 0 {
		// The same text as 'carryover CMD --help', from the same code.
		return a.run(ctx, append(rest, "--help"))
	}
	a.quietConfig = cmd == "hook" || cmd == "statusline"
	if cmd == "hook" {
		// The hook path never fails: see hook.go.
		return a.cmdHook(ctx, rest)
	}
	if cmd == "statusline" {
		// Runs after every turn: always exits 0, opens the log only to write.
		return a.cmdStatusline(ctx, rest)
	}
	a.openLog()
	var err error
	switch cmd {
	case "version":
		fmt.Fprintf(a.stdout, "carryover %s\n", versionString())
	case "demo":
		err = a.cmdDemo(ctx, rest)
	case "ingest":
		err = a.cmdIngest(ctx, rest)
	case "search":
		err = a.cmdSearch(ctx, rest)
	case "get":
		err = a.cmdGet(ctx, rest)
	case "recall":
		err = a.cmdRecall(ctx, rest)
	case "sessions":
		err = a.cmdSessions(ctx, rest)
	case "show":
		err = a.cmdShow(ctx, rest)
	case "note":
		err = a.cmdNote(ctx, rest, false)
	case "state":
		err = a.cmdNote(ctx, rest, true)
	case "sync":
		err = a.cmdSync(ctx, rest)
	case "migrate":
		err = a.cmdMigrate(ctx, rest)
	case "mcp":
		err = a.cmdMCP(ctx, rest)
	case "ui":
		err = a.cmdUI(ctx, rest)
	case "watch":
		err = a.cmdWatch(ctx, rest)
	case "bench":
		err = a.cmdBench(ctx, rest)
	case "install":
		err = a.cmdInstall(ctx, rest)
	case "uninstall":
		err = a.cmdUninstall(ctx, rest)
	case "status":
		err = a.cmdStatus(ctx, rest)
	case "doctor":
		err = a.cmdDoctor(ctx, rest)
	case "stats":
		err = a.cmdStats(ctx, rest)
	case "audit":
		err = a.cmdAudit(ctx, rest)
	case "prune":
		err = a.cmdPrune(ctx, rest)
	case "forget":
		err = a.cmdForget(ctx, rest)
	case "export":
		err = a.cmdExport(ctx, rest)
	case "import":
		err = a.cmdImport(ctx, rest)
	case "help":
		writeUsage(a.stdout)
	default:
		a.cmd = ""
		if s := cmdhelp.Suggest(cmd, cmdhelp.Names(commandHelp())); s != "" {
			return a.usageError(fmt.Sprintf("unknown command %q; did you mean %q?", cmd, s))
		}
		return a.usageError(fmt.Sprintf("unknown command %q", cmd))
	}
	if err != nil {
		return a.fail(err)
	}
	return 0
}

// usageErr is an error in how the command was called: exit code 2.
type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

// hintErr carries a hint for the user.
type hintErr struct {
	err  error
	hint string
}

func (e hintErr) Error() string { return e.err.Error() }
func (e hintErr) Unwrap() error { return e.err }

func (a *app) usageError(msg string) int {
	// A message may quote what was typed, a path or archived text: shown
	// escaped, never as terminal controls.
	fmt.Fprintf(a.stderr, "carryover: %s\nRun '%s' for usage.\n", termsafe.String(msg), termsafe.Line(strings.TrimSpace("carryover help "+a.cmd)))
	return 2
}

func (a *app) fail(err error) int {
	var ue usageErr
	if errors.As(err, &ue) {
		return a.usageError(ue.msg)
	}
	if errors.Is(err, flag.ErrHelp) {
		name := a.cmd
		if a.flags != nil {
			name = a.flags.Name()
		}
		cmdhelp.Write(a.stdout, commandHelp(), "carryover", name, a.flags)
		return 0
	}
	fmt.Fprintf(a.stderr, "carryover: error: %s\n", termsafe.String(err.Error()))
	var he hintErr
	if errors.As(err, &he) && he.hint != "" {
		fmt.Fprintf(a.stderr, "carryover: hint: %s\n", termsafe.String(he.hint))
	} else if errors.Is(err, storeopen.ErrCorrupt) {
		fmt.Fprintf(a.stderr, "carryover: hint: the store is damaged; move it aside with its -wal and -shm files ('carryover doctor' shows how) and rebuild it with 'carryover ingest --all' (transcripts are the source of truth)\n")
	} else if storeopen.IsBusy(err) {
		fmt.Fprintf(a.stderr, "carryover: hint: another program held the store's write lock for too long (a hook archiving a large session, or another carryover command); what is stored is intact: run the command again (it resumes)\n")
	} else if errors.Is(err, storeopen.ErrFull) {
		fmt.Fprintf(a.stderr, "carryover: hint: free space where the store is (or choose another with --db); nothing stored was lost, and running the command again resumes\n")
	}
	a.log.Error("command failed", "err", err)
	return 1
}

// openStore opens the configured store for a command that writes to it:
// a local store this user cannot write is refused, with how to fix it.
func (a *app) openStore(ctx context.Context, cfg config) (carryover.Store, error) {
	return a.openStoreWith(ctx, cfg, storeopen.LocalOptions{}, true)
}

// openStoreRead opens the configured store for a command that only reads:
// a local store this user cannot write opens read-only.
func (a *app) openStoreRead(ctx context.Context, cfg config) (carryover.Store, error) {
	return a.openStoreWith(ctx, cfg, storeopen.LocalOptions{}, false)
}

// readStore loads the configuration for project directory dir ("" for
// none: no project file is read) and opens its store to read. A store named by --db or
// CARRYOVER_DB that does not exist is created only when create is set (the
// MCP server, ui and watch may start before the first hook): a mistyped
// path must not leave an empty store. The default store is created.
func (a *app) readStore(ctx context.Context, dir string, create bool) (config, carryover.Store, error) {
	cfg, err := a.loadConfig(dir)
	if err != nil {
		return cfg, nil, err
	}
	if !create {
		if err := a.checkArchived(cfg); err != nil {
			return cfg, nil, err
		}
	}
	st, err := a.openStoreRead(ctx, cfg)
	return cfg, st, err
}

// readStoreOnce is readStore for a command that reads a few rows and exits
// (get): the store is opened as openSearchStore does, not created.
func (a *app) readStoreOnce(ctx context.Context) (carryover.Store, error) {
	cfg, err := a.loadConfig("")
	if err != nil {
		return nil, err
	}
	if err := a.checkArchived(cfg); err != nil {
		return nil, err
	}
	return a.openSearchStore(ctx, cfg)
}

// checkArchived returns an error with a hint when the store is a local
// file named by --db or CARRYOVER_DB that does not exist.
func (a *app) checkArchived(cfg config) error {
	if a.dbFlag == "" && (a.getenv("CARRYOVER_DB") == "" || cfg.DatabaseURL != "") {
		return nil
	}
	if _, err := os.Stat(cfg.DB); !errors.Is(err, fs.ErrNotExist) {
		return nil // an unreadable store gets its own error when opened
	}
	return hintErr{fmt.Errorf("no store at %s: nothing has been archived there yet", cfg.DB),
		"the hooks create it on their first run after 'carryover install', and 'carryover ingest --all' archives" +
			" your existing transcripts now; check --db and CARRYOVER_DB if you meant another store"}
}

// openStoreWith is openStore (write) or openStoreRead with the options of
// a local store; its busy timeout defaults to 5 s.
func (a *app) openStoreWith(ctx context.Context, cfg config, opt storeopen.LocalOptions, write bool) (carryover.Store, error) {
	return a.openStoreFor(ctx, cfg, opt, write, openServer)
}

// openSearchStore opens the configured store for a command that runs a
// search, or reads a few rows, and exits (search, recall, get): read-only,
// with the hooks' cache of pages, and one round trip per statement on a
// server.
func (a *app) openSearchStore(ctx context.Context, cfg config) (carryover.Store, error) {
	return a.openStoreFor(ctx, cfg, storeopen.LocalOptions{CachePages: hook.ReadCachePages}, false, openServerOnce)
}

// openStoreFor is openStoreWith, connecting to a configured server by
// server.
func (a *app) openStoreFor(ctx context.Context, cfg config, opt storeopen.LocalOptions, write bool,
	server func(context.Context, config, string, time.Duration) (carryover.Store, error)) (carryover.Store, error) {
	// --db names a SQLite file explicitly: it wins over a configured server.
	if cfg.DatabaseURL != "" && a.dbFlag == "" {
		if err := checkURL(cfg.DatabaseURL); err != nil {
			return nil, err
		}
		st, err := server(ctx, cfg, cfg.DatabaseURL, cliConnectTimeout)
		if err != nil {
			return nil, hintErr{err, serverHint(cfg.DatabaseURL)}
		}
		return st, nil
	}
	opt.BusyTimeout = cmp.Or(opt.BusyTimeout, 5*time.Second)
	var nw *storeopen.NotWritableError
	if err := storeopen.CheckWrite(cfg.DB); errors.As(err, &nw) {
		if write {
			if abs, _ := filepath.Abs(cfg.DB); nw.Path == abs {
				return nil, hintErr{fmt.Errorf("cannot write the store %s: %s", cfg.DB, nw.Reason), nw.Fix}
			}
			return nil, hintErr{fmt.Errorf("cannot write the store %s: %w", cfg.DB, err), nw.Fix}
		}
		opt.ReadOnly = true
	}
	st, err := storeopen.Local(ctx, cfg.DB, opt)
	if err != nil {
		// storeopen.Local's errors name the store already.
		return nil, storeErr(err)
	}
	return st, nil
}

// storeErr adds a hint to an error opening the local store.
func storeErr(err error) error {
	if errors.Is(err, storeopen.ErrNotStore) {
		return hintErr{err, "carryover uses only a store it created, and changed nothing in this file:" +
			" point --db, CARRYOVER_DB or the db setting of your config at carryover's store (or at a new path)"}
	}
	if errors.Is(err, storeopen.ErrCorrupt) || errors.Is(err, storeopen.ErrFull) {
		return err // fail gives their hints
	}
	return hintErr{err, "use --db PATH or CARRYOVER_DB to choose another store"}
}

// newFlags returns a flag set for a subcommand that also accepts --db.
func (a *app) newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Help and errors are printed by run (writeHelp, usageError), in one
	// format for every command, not by package flag.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&a.dbFlag, "db", a.dbFlag, "the SQLite store (see 'carryover help')")
	a.flags = fs
	return fs
}

// parseInterspersed parses flags that may come after positional arguments,
// as in "carryover search words --json".
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageErr{cmdhelp.FlagHint(fs, err.Error())}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// builtinRedactor is the redactor with the built-in detectors alone,
// built once: the log and the configuration share it (building one costs
// a hook process about a millisecond).
func (a *app) builtinRedactor() *redact.Redactor {
	if a.builtin == nil {
		a.builtin = redact.New(redact.Options{})
	}
	return a.builtin
}

// openLog opens the size-capped log file; logging is best effort.
func (a *app) openLog() {
	path := logPath(a.getenv)
	if a.projectDir != "" {
		path = logPathIn(a.getenv, a.projectDir) // the status line's, from its input
	}
	f, err := openLogFile(path)
	if err != nil {
		return
	}
	a.logOut = slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})
	a.maskLog(a.builtinRedactor())
	a.logClose = func() { f.Close() }
}

// maskLog makes the log mask with red (with redact_patterns once read).
func (a *app) maskLog(red *redact.Redactor) {
	if a.logOut != nil && red != nil {
		a.log = slog.New(redact.LogHandler{Next: a.logOut, Redactor: red}).With("pid", os.Getpid())
	}
}
