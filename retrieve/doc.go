// Package retrieve selects and renders what carryover puts back into
// Claude's context. It is pure logic over [carryover.Store]: the restore
// block after a compaction ([Restore]), ranked search snippets ([Search]),
// recall on a new prompt ([Recall]) and the PreCompact instructions
// ([Instructions]).
//
// # Restore
//
// [Restore] renders four parts in a fixed order, each sized from what is
// present and capped by [RestoreShares]: Now (state note, last request,
// todo list, what the assistant was about to do), Working set (files
// edited, the last command of each kind, the identifiers the model typed
// into its tool calls), Lost facts and Last steps. The typed identifiers
// keep at least [MinTypedShare] of the room when there are enough of them
// ([SmallTypedShare] at a small budget),
// weighted by the sum of the squares of the relative positions of the
// chunks that typed them (recent and repeated first), those typed into
// the text of a file (an edit's strings, a file written) weighing
// tierWeights[1] of those typed as a call's arguments (paths, commands,
// patterns): after a compaction they are most of what the next steps
// re-type. After a second compaction the working set and the last steps
// are those of the window that just ended.
//
// Lost facts are items of the session's earlier context windows, scored:
//
//	score = Weight                          // typeWeight × markerBoost, from extraction
//	      × (0.5 + 0.5·line/maxLine)        // recency within the session
//	      × exp(−cycleAge/HalfLife)         // cycleAge = window − 1 − item.Window
//	      × JustCompactedBoost if cycleAge = 0
//	      × (1 + SpecificityStep·rare)      // rare = distinct paths, identifiers, numbers, flags (≤ SpecificityMax)
//	      × (1 + CountBoost·ln(count))      // seen several times, sublinearly
//	      × OpenErrorBoost                  // errors with no fix seen
//
// Trivial items are never restored: navigation and inspection commands (ls,
// cd, cat, git status, git add...), goals without an informative word
// ("continue"), noise (interrupted-request markers, acknowledgements,
// test-count lines, escaped white space).
//
// Novelty drops every item whose key string (the path, absolute or
// project-relative; the command; the head of an error or statement), and
// every typed identifier as the model typed it, the compaction summary
// already contains, compared
// case-insensitively after white-space normalisation and at word
// boundaries; what the working set shows is not repeated as a fact.
// Near-duplicates are dropped: the same text (errors compared with digits
// masked, commands without "2>&1" and a trailing "| head" or "| tail"), a
// token-set overlap of [NearDupJaccard] or more, or a fix already shown
// next to its error. The facts' sections (errors, constraints, decisions,
// values, notes) are interleaved by always taking the next best entry of
// the section furthest below its share. Each line ends with its
// provenance, "(LN)": the transcript line, which search results and get
// take.
//
// # Tool hooks
//
// [FailureRecall] and [FileRecall] answer tool calls, where no prompt
// asks, and say nothing the call itself just put in front of the model.
// A failure is recalled when an earlier one scores [FailureMinScore] or
// more against it and was fixed, unless the live error already quotes
// every step of the fix ("Run 'mix format' to fix."). A file is recalled
// with the newest edits' lines that hold an identifier neither the
// compaction summary nor the call (its input, a Read's lines) shows, at
// least [FileRecallMinNovel] of them; an edit none of whose lines is left
// goes unmentioned, whatever its reason says.
//
// # Search snippets
//
// Search results share the budget by rank, hit i getting 1/(i+1) of it
// relative to the others: the best hits show more of their chunk, and a
// small budget goes to a few long snippets rather than many fragments.
//
// # Recall threshold
//
// A recall hit must score at least [RecallMinScore] in BM25 (Hit.BM25, on
// package rank's scale, which every store shares), its chunk must contain
// [RecallMinTerms] distinct informative words of the prompt, or one
// identifier-like word (a path, camelCase, snake_case, a dotted name, a
// flag), and at least [RecallMinCoverage] of the prompt's informative words
// and identifiers, weighted as in snippets. A prompt's words are split by
// package tokenize, without its stopwords and filler. Slash commands and
// prompts without such words never search.
package retrieve
