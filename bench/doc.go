// Package bench measures carryover on real transcripts, through the code
// users run: the hooks as `carryover hook <event>` runs them
// ([hook.Handler]), the one ingest recipe ([ingest.Archiver]) and the
// search the CLI and the MCP tools use ([retrieve.Search]).
//
//   - [Replay] drives the hooks over a transcript as Claude Code would:
//     the file grows line by line, PreCompact runs before a compaction's
//     boundary, SessionStart(compact) after its summary, UserPromptSubmit
//     on a prompt.
//   - [Survival] scores the compaction-survival benchmark: the restore the
//     hooks inject after each real compaction, and a search of the session
//     with each question.
//   - [Recall] calibrates UserPromptSubmit recall: answers injected for the
//     survival questions, false injections on real prompts whose answer is
//     not in the archive, over a sweep of thresholds.
//   - [Latency] times whole processes of the binary, and of a second one
//     interleaved run for run.
//   - [Locomo] and [Scale] measure search: retrieval on LoCoMo, and the
//     latency of recall and search on a generated archive.
package bench
