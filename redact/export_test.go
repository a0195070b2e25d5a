package redact

// Work returns the work masking s costs (see WorkBudget) and whether s
// was omitted for it.
func (r *Redactor) Work(s string) (work int, omitted bool) {
	_, counts, work := r.redact(s, nil, "")
	return work, counts[OmittedKind] > 0
}

// RedactBudget masks s with a work budget of its own.
func (r *Redactor) RedactBudget(s string, budget int) (string, map[string]int) {
	out, counts, _ := r.redactBudget(s, nil, "", budget)
	return out, counts
}
