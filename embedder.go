package carryover

// Embedder maps texts to fixed-size vectors whose dot product measures how
// alike two texts are (the vectors are L2-normalised, so it is their
// cosine).
//
// Embedders run inside hook processes with a hard deadline, so the contract
// is deliberately that of a pure function: deterministic, in-process, no
// context and no error. An embedder that would need a model server or could
// fail does not belong on the hook path; it would have to be wrapped by
// something that falls back to one that cannot.
type Embedder interface {
	// Name identifies the embedder, its parameters and its version: vectors
	// stored under one name are not comparable with another name's.
	Name() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Embed returns one vector per text, in order: a unit vector, or the
	// zero vector when the embedder finds nothing to embed in the text.
	Embed(texts []string) [][]float32
}

// QueryEmbedder is an Embedder that can weigh a query's words by how rare
// they are in the archive (an optional capability: stores use it when the
// embedder has it).
type QueryEmbedder interface {
	Embedder
	EmbedQuery(text string, idf func(string) float64) []float32
}
