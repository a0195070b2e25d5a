package retrieve

import (
	"context"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/passage"
)

// ErrorOutputs reads back failed calls' whole outputs from the raw
// archive, at most DeepReadBytes of them in all: a raw line may hold up
// to 16 MB, and decoding a few of those would take a hook's time.
type ErrorOutputs struct {
	st   carryover.Store
	left int
}

// DeepReadBytes bounds the raw lines one ErrorOutputs decodes.
const DeepReadBytes = 8 << 20

// NewErrorOutputs returns a reader of st's failed outputs.
func NewErrorOutputs(st carryover.Store) *ErrorOutputs {
	return &ErrorOutputs{st: st, left: DeepReadBytes}
}

// Lines returns the error lines (chunk.ErrorLines, at most
// deepErrorLines) of the output of an error item's failed call; none when
// the line was pruned, or when it is more than what is left to read.
func (o *ErrorOutputs) Lines(ctx context.Context, it carryover.Item) ([]string, error) {
	if o.left <= 0 {
		return nil, nil
	}
	raw, err := o.st.RawLines(ctx, it.SessionID, it.Line, it.Line)
	if err != nil || len(raw) != 1 {
		return nil, err
	}
	if len(raw[0].Text) > o.left {
		o.left = 0
		return nil, nil
	}
	o.left -= len(raw[0].Text)
	return chunk.ErrorLines(passage.Text(raw[0].Text), deepErrorLines), nil
}
