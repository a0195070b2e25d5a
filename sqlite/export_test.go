package sqlite

// MaxCandidates exposes the search cost bound to the tests.
const MaxCandidates = maxCandidates

// DiskFull exposes how Open recognises a full disk.
var DiskFull = diskFull

// MaxFold exposes how many journal runs one fold inserts.
const MaxFold = maxFold

// MaxJournal exposes the journal's bound.
const MaxJournal = maxJournal
