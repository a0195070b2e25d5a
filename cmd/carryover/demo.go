package main

import (
	"context"
	_ "embed"

	conf "github.com/carryover-dev/carryover/config"
	"github.com/carryover-dev/carryover/demo"
)

// demoSession is a realistic session in Claude Code's transcript format
// with tool calls, an error and its fix, and one compaction.
//
//go:embed demodata/session.jsonl
var demoSession []byte

func (a *app) cmdDemo(ctx context.Context, args []string) error {
	fl := a.newFlags("demo")
	opt := demo.Options{Sample: demoSession, Handler: a.hookHandler(conf.Defaults(a.configEnv()))}
	fl.StringVar(&opt.Transcript, "transcript", "", "replay this transcript instead of the built-in sample")
	fl.IntVar(&opt.Budget, "budget", 4000, "restore budget in characters")
	fl.BoolVar(&opt.Keep, "keep", false, "keep the temporary store and transcript")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if opt.Budget <= 0 {
		return usageErr{"demo: --budget must be positive"}
	}
	return demo.Run(ctx, a.stdout, opt)
}
