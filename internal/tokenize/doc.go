// Package tokenize is carryover's one tokenizer: how text becomes the
// words that the full-text indexes, the embedder, store queries, recall
// and search snippets all see.
//
// Words are runs of letters, digits and '_' (IsWordRune). Compound
// identifiers (camelCase, snake_case) also yield their parts (SplitIdent),
// and runs of words joined by connectors (paths, file names, versions,
// kebab-case) are compounds, matched as phrases (Compounds). Runs of
// scripts written without spaces (Han, Kana, Hangul) also yield their
// character bigrams (CJKRuns), indexed and queried alike, so that a word
// inside such a run is found. One stopword list (IsStopword) is dropped
// from every query, and recall also drops filler (IsFiller) from a prompt.
//
// FTS reproduces, token for token, the tokenizer of the SQLite store's
// full-text index (FTS5's unicode61 with remove_diacritics 2 and tokenchars
// '_', then its porter stemmer), so that a store without FTS5 indexes the
// same tokens and can compute the same BM25 (package rank).
package tokenize
