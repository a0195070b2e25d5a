// Package retrieve selects and renders what carryover puts back into
// Claude's context. It is pure logic over [carryover.Store]: the restore
// block after a compaction ([Restore]), ranked search snippets ([Search]),
// recall on a new prompt ([Recall]) and the PreCompact instructions
// ([Instructions]).
//
// # Restore ranking
//
// Items of the session's earlier context windows are scored, starting from
// compahook's recency × typeWeight × markerBoost × exp(−cycleAge/halfLife):
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
// cd, cat, git status, git add...) and goals without an informative word
// ("continue").
//
// Before ranking, novelty drops every item whose key string (the path,
// absolute or project-relative; the command; the head of an error or
// statement) the compaction summary already contains, compared
// case-insensitively after white-space normalisation and at word
// boundaries. After ranking, near-duplicates are dropped: the same text
// (errors compared with digits masked, commands without "2>&1" and a
// trailing "| head" or "| tail"), a token-set overlap of [NearDupJaccard]
// or more, or a fix already shown next to its error.
//
// # Budget
//
// Sections (current state, constraints, decisions, errors, files,
// commands, values and names, notes) have budget shares. Values (settings,
// definitions, UI strings, ids, commits) are shown one by one, each dropped
// when the summary quotes it. A last section, verbatim excerpts of the last
// steps before the compaction, takes only what the others leave. All candidates are interleaved into
// one sequence, independent of the budget, by always taking the next best
// entry of the section furthest below its share; a section that runs out
// leaves its share to the others. The block is the longest prefix of that
// sequence that fits, the last entry cut to fit, so a bigger budget always
// shows a superset. Each line's text keeps its head (at most 200 bytes)
// and ends with its provenance, "(LN)": the transcript line, which search
// results and get take. Commands are shown without what only shaped their
// output in the transcript ("2>&1", a final "| tail -N"), and commands that
// differ only in numbers count as one.
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
