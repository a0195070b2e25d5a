package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/carryover-dev/carryover/bench"
	"github.com/carryover-dev/carryover/demo"
	"github.com/carryover-dev/carryover/retrieve"
)

// The benchmarks live in package bench; this file parses their flags and
// prints their results.

// sharedHint is the hint of a benchmark whose data is missing.
const sharedHint = "the benchmark lives in the shared data folder beside the repo"

func (a *app) cmdBench(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr{"bench: give needed, jit, survival, recall, latency, locomo or scale"}
	}
	switch args[0] {
	case "latency":
		return a.benchLatency(ctx, args[1:])
	case "survival":
		return a.benchSurvival(ctx, args[1:])
	case "locomo":
		return a.benchLocomo(ctx, args[1:])
	case "recall":
		return a.benchRecall(ctx, args[1:])
	case "scale":
		return a.benchScale(ctx, args[1:])
	case "needed":
		return a.benchNeeded(ctx, args[1:])
	case "jit":
		return a.benchJIT(ctx, args[1:])
	}
	return usageErr{fmt.Sprintf("bench: unknown benchmark %q (needed, jit, survival, recall, latency, locomo, scale)", args[0])}
}

func sharedPath(elem ...string) string {
	return filepath.Join(append([]string{"..", "shared"}, elem...)...)
}

func (a *app) benchSurvival(ctx context.Context, args []string) error {
	fl := a.newFlags("bench survival")
	var opt bench.SurvivalOptions
	fl.StringVar(&opt.Items, "items", sharedPath("bench", "compaction-survival", "dev.jsonl"), "benchmark items (JSONL)")
	fl.StringVar(&opt.Transcripts, "transcripts", sharedPath("data", "transcripts", "spotter"), "directory of the sessions' transcripts")
	fl.IntVar(&opt.Budget, "budget", retrieve.DefaultRestoreBudget, "characters of restore and of recall text")
	fl.IntVar(&opt.K, "k", 8, "recall: top-k hits")
	fl.DurationVar(&opt.Timeout, "hook-timeout", bench.DefaultHookTimeout, "the hooks' deadline")
	fl.Var(bench.SharesValue{Shares: &opt.Shares}, "shares", "the restore's budget shares now,files,commands,facts,steps (a sweep; default: the product's)")
	asJSON := fl.Bool("json", false, "print JSON")
	verbose := fl.Bool("v", false, "print each item's outcome")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if opt.Budget <= 0 || opt.K <= 0 {
		return usageErr{"bench survival: --budget and --k must be positive"}
	}
	if _, err := os.Stat(opt.Items); err != nil {
		return hintErr{err, "pass --items and --transcripts (" + sharedHint + ")"}
	}
	res, err := bench.Survival(ctx, opt)
	if err != nil {
		return err
	}
	if *verbose {
		res.PrintItems(a.stderr)
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(res.Scores)
	}
	return res.Print(a.stdout)
}

func (a *app) benchRecall(ctx context.Context, args []string) error {
	fl := a.newFlags("bench recall")
	var opt bench.RecallOptions
	fl.StringVar(&opt.Items, "items", sharedPath("bench", "compaction-survival", "dev.jsonl"), "positive questions (JSONL)")
	fl.StringVar(&opt.Transcripts, "transcripts", sharedPath("data", "transcripts"), "directory of real transcripts (spotter/ and claude-code-log/)")
	fl.IntVar(&opt.Budget, "budget", retrieve.DefaultRecallBudget, "characters recall may inject")
	fl.DurationVar(&opt.Timeout, "hook-timeout", bench.DefaultHookTimeout, "the hooks' deadline")
	asJSON := fl.Bool("json", false, "print JSON")
	verbose := fl.Bool("v", false, "print each prompt's outcome")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if opt.Budget <= 0 {
		return usageErr{"bench recall: --budget must be positive"}
	}
	if _, err := os.Stat(opt.Items); err != nil {
		return hintErr{err, "pass --items and --transcripts (" + sharedHint + ")"}
	}
	res, err := bench.Recall(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		if !*verbose {
			res.Prompts = nil
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.Print(a.stdout, *verbose)
}

func (a *app) benchLatency(ctx context.Context, args []string) error {
	fl := a.newFlags("bench latency")
	opt := bench.LatencyOptions{Sample: demoSession, SampleID: demo.SampleID, Log: a.stderr}
	fl.StringVar(&opt.Transcripts, "transcripts", sharedPath("data", "transcripts", "spotter"), "directory of transcripts to ingest (default: the built-in sample when absent)")
	fl.IntVar(&opt.Runs, "runs", 15, "runs per measurement")
	fl.StringVar(&opt.Compare, "compare", "", "another carryover binary, measured interleaved with this one run for run")
	asJSON := fl.Bool("json", false, "print JSON")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if opt.Runs < 1 {
		return usageErr{"bench latency: --runs must be at least 1"}
	}
	res, err := bench.Latency(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(res.Rows)
	}
	return res.Print(a.stdout)
}

func (a *app) benchLocomo(ctx context.Context, args []string) error {
	fl := a.newFlags("bench locomo")
	var opt bench.LocomoOptions
	fl.StringVar(&opt.Data, "data", sharedPath("data", "locomo", "locomo10.json"), "LoCoMo conversations and questions (locomo10.json)")
	fl.StringVar(&opt.Audit, "audit", sharedPath("data", "locomo", "locomo-audit-errors.json"), "audit of the ground truth (errors.json of locomo-audit); \"\" for none")
	asJSON := fl.Bool("json", false, "print JSON")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	res, err := bench.Locomo(ctx, opt)
	if err != nil {
		return hintErr{err, "pass --data, and --audit or --audit '' to score the original evidence only (" + sharedHint + ")"}
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(res.JSON())
	}
	return res.Print(a.stdout)
}

func (a *app) benchScale(ctx context.Context, args []string) error {
	fl := a.newFlags("bench scale")
	opt := bench.ScaleOptions{Log: a.stderr}
	fl.IntVar(&opt.Plan.Chunks, "chunks", 100000, "chunks to generate")
	fl.StringVar(&opt.Dir, "dir", "", "directory of the generated store (default: a temporary one, removed unless --keep)")
	fl.BoolVar(&opt.Keep, "keep", false, "keep the store, and measure an existing one again without generating it")
	fl.StringVar(&opt.Transcripts, "transcripts", sharedPath("data", "transcripts", "spotter"), "transcripts whose chunks give the vocabulary")
	fl.IntVar(&opt.Plan.PerSession, "per-session", 2000, "chunks per session")
	fl.IntVar(&opt.Plan.Projects, "projects", 4, "projects the sessions are spread over")
	fl.IntVar(&opt.Plan.Batch, "batch", 500, "chunks per Apply")
	fl.IntVar(&opt.Workers, "workers", runtime.NumCPU(), "sessions generated and applied at once (embedding runs in parallel, writes one at a time)")
	fl.IntVar(&opt.Runs, "runs", 15, "runs per measurement")
	fl.StringVar(&opt.Exe, "exe", "", "binary to measure (default: this one)")
	fl.StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the generation to this file")
	measureDB := fl.String("measure-db", "", "internal: only measure this store and print the rows as JSON")
	measureServer := fl.Bool("measure-server", false, "internal: with --measure-db, measure the server CARRYOVER_DATABASE_URL names")
	catchUpDB := fl.String("catch-up-db", "", "internal: only bring this kept store up to this carryover")
	asJSON := fl.Bool("json", false, "print JSON")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *catchUpDB != "" {
		return bench.CatchUp(*catchUpDB)
	}
	if *measureDB != "" {
		rows, err := bench.MeasureScale(opt.Exe, *measureDB, *measureServer, opt.Plan, opt.Runs)
		if err != nil {
			return err
		}
		return json.NewEncoder(a.stdout).Encode(rows)
	}
	p := opt.Plan
	if p.Chunks < 1 || p.PerSession < 2 || p.Projects < 1 || p.Batch < 1 || opt.Workers < 1 || opt.Runs < 1 {
		return usageErr{"bench scale: --chunks, --projects, --batch, --workers and --runs must be positive, --per-session at least 2"}
	}
	if _, err := os.Stat(opt.Transcripts); err != nil {
		return hintErr{err, "pass --transcripts (real sessions beside the repo give the vocabulary)"}
	}
	// The configured store is measured: a team's server when database_url
	// is set (an empty, throwaway database), else a generated SQLite file.
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	if cfg.DatabaseURL != "" {
		if err := checkURL(cfg.DatabaseURL); err != nil {
			return err
		}
		opt.DatabaseURL, opt.Owner, opt.Team = cfg.DatabaseURL, cfg.Owner, cfg.Team
	}
	res, err := bench.Scale(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(res)
	}
	return res.Print(a.stdout)
}

func (a *app) benchNeeded(ctx context.Context, args []string) error {
	fl := a.newFlags("bench needed")
	opt := bench.NeededOptions{}
	fl.IntVar(&opt.Budget, "budget", retrieve.DefaultRestoreBudget, "characters of restore")
	fl.DurationVar(&opt.Timeout, "hook-timeout", bench.DefaultHookTimeout, "the hooks' deadline")
	fl.Var(bench.SharesValue{Shares: &opt.Shares}, "shares", "the restore's budget shares now,files,commands,facts,steps (a sweep; default: the product's)")
	all := fl.Bool("all", false, "your own sessions (Claude Code's transcripts under ~/.claude/projects)")
	var transcripts stringList
	fl.Var(&transcripts, "transcripts", "a transcript or a directory of them (repeatable; default: the spotter sessions beside the repo)")
	var vocab stringList
	fl.Var(&vocab, "vocabulary", "transcripts general vocabulary is computed from: identifiers in the sessions of 3 or more repositories (repeatable; default: all the sessions beside the repo, or --transcripts)")
	asJSON := fl.Bool("json", false, "print JSON")
	show := fl.Bool("show", false, "list the identifiers each restore missed")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	opt.Paths = append(transcripts, pos...)
	if *all {
		opt.Paths = append(opt.Paths, a.configEnv().ClaudeProjects())
	}
	if len(opt.Paths) == 0 {
		opt.Paths = []string{sharedPath("data", "transcripts", "spotter")}
		if len(vocab) == 0 {
			vocab = stringList{sharedPath("data", "transcripts")}
		}
	}
	opt.Vocabulary = vocab
	if opt.Budget <= 0 {
		return usageErr{"bench needed: --budget must be positive"}
	}
	if err := bench.CheckPaths(opt.Paths); err != nil {
		return hintErr{err, "pass --transcripts or --all (the default sessions live in the shared data folder beside the repo)"}
	}
	opt.Progress = func(path string) { a.log.Info("bench needed", "transcript", path) }
	res, err := bench.Needed(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.JSON())
	}
	return res.Print(a.stdout, *show)
}

func (a *app) benchJIT(ctx context.Context, args []string) error {
	fl := a.newFlags("bench jit")
	opt := bench.JITOptions{}
	fl.IntVar(&opt.Next, "next", 5, "the model's next tool calls an injection's identifiers are compared with")
	fl.DurationVar(&opt.Timeout, "hook-timeout", bench.DefaultHookTimeout, "the hooks' deadline")
	fl.BoolVar(&opt.ByCwd, "by-cwd", false, "each session the project of its own working directory (default: the sessions of a directory are one project)")
	all := fl.Bool("all", false, "your own sessions (Claude Code's transcripts under ~/.claude/projects)")
	var transcripts stringList
	fl.Var(&transcripts, "transcripts", "a transcript or a directory of them, one project per directory (repeatable; default: the real sessions beside the repo)")
	asJSON := fl.Bool("json", false, "print JSON")
	verbose := fl.Bool("v", false, "print every injection at the installed setting")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	opt.Paths = append(transcripts, pos...)
	if *all {
		opt.Paths = append(opt.Paths, a.configEnv().ClaudeProjects())
	}
	if len(opt.Paths) == 0 {
		opt.Paths = []string{sharedPath("data", "transcripts")}
	}
	if opt.Next <= 0 {
		return usageErr{"bench jit: --next must be positive"}
	}
	if err := bench.CheckPaths(opt.Paths); err != nil {
		return hintErr{err, "pass --transcripts or --all (the default sessions live in the shared data folder beside the repo)"}
	}
	opt.Progress = func(path string) { a.log.Info("bench jit", "transcript", path) }
	res, err := bench.JIT(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.JSON(*verbose))
	}
	return res.Print(a.stdout, *verbose)
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
