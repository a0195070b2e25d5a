package sqlite

// MaxCandidates exposes the search cost bound to the tests.
const MaxCandidates = maxCandidates
