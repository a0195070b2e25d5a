// Package oracle holds no code: its test checks the redactor against a
// well-kept secret scanner (gitleaks) as an oracle, over the secret corpus
// carried through ingest, the store, search, restore, export and import.
// The scanner's dependencies stay in this test.
package oracle
