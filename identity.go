package carryover

// Identity of rows across stores: an import of an export, a replication
// to or from a server and a sync all recognise a row the destination
// already has by the same rules, so that copying twice adds nothing.
//
//   - a session by its id;
//   - a chunk by its session and content hash (ids and sequence numbers
//     are each store's own);
//   - an item by its session, kind and key;
//   - an injection by InjectionKey, a hook run by HookRunKey;
//   - a note as NoteRedundant says.

// InjectionKey identifies an audit record: its session, event, window,
// content hash and time to the millisecond (stores keep microseconds or
// nanoseconds; exports milliseconds at least).
type InjectionKey struct {
	Session, Event, Hash string
	Window               int
	Millis               int64
}

// Key is the injection's identity across stores.
func (in Injection) Key() InjectionKey {
	return InjectionKey{in.SessionID, in.Event, in.Hash, in.Window, in.Time.UnixMilli()}
}

// HookRunKey identifies a recorded hook run.
type HookRunKey struct {
	Session, Project, Event, Outcome string
	Millis, LatencyMicros            int64
}

// Key is the hook run's identity across stores.
func (r HookRun) Key() HookRunKey {
	return HookRunKey{r.SessionID, r.Project, r.Event, r.Outcome, r.Time.UnixMilli(), r.Latency.Microseconds()}
}

// NoteRedundant reports whether have, a note the destination holds, makes
// n redundant: the same note, or (for a state, which replaces the
// previous one) a state at least as new in the same scope. projectScope
// says whether the notes are project notes (no session).
func NoteRedundant(have, n Note, projectScope bool) bool {
	if have.Kind == "state" && n.Kind == "state" && (!projectScope || have.Project == n.Project) &&
		have.Time.UnixMilli() >= n.Time.UnixMilli() {
		return true
	}
	return have.SessionID == n.SessionID && have.Project == n.Project && have.Kind == n.Kind &&
		have.Text == n.Text && have.Time.UnixMilli() == n.Time.UnixMilli()
}
