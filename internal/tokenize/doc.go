// Package tokenize is carryover's one tokenizer: how text becomes the
// words that the full-text indexes, the embedder, store queries, recall
// and search snippets all see.
//
// Words are runs of letters, digits and '_' (IsWordRune). Compound
// identifiers (camelCase, snake_case) also yield their parts (SplitIdent),
// and runs of words joined by connectors (paths, file names, versions,
// kebab-case) are compounds, matched as phrases (Compounds). One stopword
// list (IsStopword) is dropped from every query, and recall also drops
// filler (IsFiller) from a prompt.
package tokenize
