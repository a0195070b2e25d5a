package replicate

import (
	"context"
	"fmt"
	"slices"

	"github.com/carryover-dev/carryover"
)

// copyNotes copies notes not already in the destination: of the selected
// sessions, or every note (project notes included) for a whole copy.
func (c *copier) copyNotes(ctx context.Context) error {
	var notes []carryover.Note
	if c.opt.Sessions == nil {
		all, err := c.src.Notes(ctx, "", "")
		if err != nil {
			return fmt.Errorf("source notes: %w", err)
		}
		notes = all
	} else {
		for _, id := range c.opt.Sessions {
			ns, err := c.src.Notes(ctx, "", id)
			if err != nil {
				return fmt.Errorf("source notes: %w", err)
			}
			notes = append(notes, ns...)
		}
	}
	// The destination's notes by scope: a session's, or a project's own.
	type scope struct{ project, session string }
	cache := map[scope][]carryover.Note{}
	dstNotes := func(sc scope) ([]carryover.Note, error) {
		if ns, ok := cache[sc]; ok {
			return ns, nil
		}
		ns, err := c.dst.Notes(ctx, sc.project, sc.session)
		if err != nil {
			return nil, fmt.Errorf("destination notes: %w", err)
		}
		if sc.session == "" {
			ns = slices.DeleteFunc(ns, func(n carryover.Note) bool { return n.SessionID != "" })
		}
		cache[sc] = ns
		return ns, nil
	}
	for _, n := range notes {
		if gone, err := c.forgotten(ctx, n.SessionID); err != nil {
			return err
		} else if gone {
			continue
		}
		sc := scope{session: n.SessionID}
		if n.SessionID == "" {
			sc.project = n.Project
		}
		have, err := dstNotes(sc)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(have, func(h carryover.Note) bool { return carryover.NoteRedundant(h, n, sc.session == "") }) {
			continue
		}
		n.ID = 0
		if _, err := c.dst.AddNote(ctx, n); err != nil {
			return fmt.Errorf("add note: %w", err)
		}
		c.rep.Notes++
		if n.Kind == "state" {
			have = slices.DeleteFunc(have, func(h carryover.Note) bool { return h.Kind == "state" })
		}
		cache[sc] = append(have, n)
	}
	return nil
}

// copyInjections copies the audit log, oldest first, translating chunk and
// item ids.
func (c *copier) copyInjections(ctx context.Context) error {
	var ins []carryover.Injection
	if c.opt.Sessions == nil {
		all, err := c.src.Injections(ctx, "", 0)
		if err != nil {
			return fmt.Errorf("source injections: %w", err)
		}
		ins = all
	} else {
		for _, id := range c.opt.Sessions {
			l, err := c.src.Injections(ctx, id, 0)
			if err != nil {
				return fmt.Errorf("source injections: %w", err)
			}
			ins = append(ins, l...)
		}
	}
	slices.Reverse(ins)
	have := map[string]map[carryover.InjectionKey]bool{}
	for _, in := range ins {
		if gone, err := c.forgotten(ctx, in.SessionID); err != nil {
			return err
		} else if gone {
			continue
		}
		set, ok := have[in.SessionID]
		if !ok {
			l, err := c.dst.Injections(ctx, in.SessionID, 0)
			if err != nil {
				return fmt.Errorf("destination injections: %w", err)
			}
			set = map[carryover.InjectionKey]bool{}
			for _, h := range l {
				if h.SessionID == in.SessionID {
					set[h.Key()] = true
				}
			}
			have[in.SessionID] = set
		}
		k := in.Key()
		if set[k] {
			continue
		}
		var err error
		var lost int
		if in.ChunkIDs, in.ItemIDs, lost, err = c.ids.translate(ctx, in); err != nil {
			return err
		}
		c.rep.Unmapped += lost
		in.ID = 0
		if _, err := c.dst.RecordInjection(ctx, in); err != nil {
			return fmt.Errorf("record injection: %w", err)
		}
		set[k] = true
		c.rep.Injections++
	}
	return nil
}

// copyHookRuns copies hook runs, oldest first.
func (c *copier) copyHookRuns(ctx context.Context) error {
	var runs []carryover.HookRun
	if c.opt.Sessions == nil {
		all, err := c.src.HookRuns(ctx, carryover.HookRunFilter{})
		if err != nil {
			return fmt.Errorf("source hook runs: %w", err)
		}
		runs = all
	} else {
		for _, id := range c.opt.Sessions {
			l, err := c.src.HookRuns(ctx, carryover.HookRunFilter{SessionID: id})
			if err != nil {
				return fmt.Errorf("source hook runs: %w", err)
			}
			runs = append(runs, l...)
		}
	}
	slices.Reverse(runs)
	have := map[string]map[carryover.HookRunKey]bool{}
	for _, r := range runs {
		if gone, err := c.forgotten(ctx, r.SessionID); err != nil {
			return err
		} else if gone {
			continue
		}
		set, ok := have[r.SessionID]
		if !ok {
			l, err := c.dst.HookRuns(ctx, carryover.HookRunFilter{SessionID: r.SessionID})
			if err != nil {
				return fmt.Errorf("destination hook runs: %w", err)
			}
			set = map[carryover.HookRunKey]bool{}
			for _, h := range l {
				set[h.Key()] = true
			}
			have[r.SessionID] = set
		}
		k := r.Key()
		if set[k] {
			continue
		}
		r.ID = 0
		if err := c.dst.RecordHookRun(ctx, r); err != nil {
			return fmt.Errorf("record hook run: %w", err)
		}
		set[k] = true
		c.rep.HookRuns++
	}
	return nil
}

// idMap translates the source's chunk and item ids into the destination's:
// a chunk by its (session, hash), an item by its (session, kind, key).
// Sessions are loaded once and kept; the maps hold ids and keys only.
type idMap struct {
	src, dst carryover.Store
	// srcChunks: source chunk id → session and hash.
	srcChunks map[int64]chunkRef
	// dstChunks: per session, hash → destination id.
	dstChunks map[string]map[string]int64
	// srcItems: per loaded session, source item id → kind and key.
	srcItems  map[int64]itemRef
	srcLoaded map[string]bool
	dstItems  map[string]map[itemRef]int64
}

type chunkRef struct{ session, hash string }

type itemRef struct {
	session string
	kind    carryover.ItemKind
	key     string
}

func newIDMap(src, dst carryover.Store) *idMap {
	return &idMap{src: src, dst: dst, srcChunks: map[int64]chunkRef{}, dstChunks: map[string]map[string]int64{},
		srcItems: map[int64]itemRef{}, srcLoaded: map[string]bool{}, dstItems: map[string]map[itemRef]int64{}}
}

// translate returns the injection's ids in the destination and how many
// had no counterpart.
func (m *idMap) translate(ctx context.Context, in carryover.Injection) (chunks, items []int64, lost int, err error) {
	var missing []int64
	for _, id := range in.ChunkIDs {
		if _, ok := m.srcChunks[id]; !ok {
			missing = append(missing, id)
		}
	}
	for part := range slices.Chunk(missing, 500) {
		l, err := m.src.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: part})
		if err != nil {
			return nil, nil, 0, fmt.Errorf("source chunks: %w", err)
		}
		for _, ch := range l {
			m.srcChunks[ch.ID] = chunkRef{ch.SessionID, ch.Hash}
		}
	}
	// Items are looked up in the sessions the injection involves: its own
	// and those of the chunks it cites.
	sessions := []string{in.SessionID}
	for _, id := range in.ChunkIDs {
		ref, ok := m.srcChunks[id]
		if !ok {
			lost++
			continue
		}
		if !slices.Contains(sessions, ref.session) {
			sessions = append(sessions, ref.session)
		}
		dstID, err := m.dstChunk(ctx, ref)
		if err != nil {
			return nil, nil, 0, err
		}
		if dstID == 0 {
			lost++
			continue
		}
		chunks = append(chunks, dstID)
	}
	if len(in.ItemIDs) > 0 {
		for _, s := range sessions {
			if err := m.loadSrcItems(ctx, s); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	for _, id := range in.ItemIDs {
		ref, ok := m.srcItems[id]
		if !ok {
			lost++
			continue
		}
		dstID, err := m.dstItem(ctx, ref)
		if err != nil {
			return nil, nil, 0, err
		}
		if dstID == 0 {
			lost++
			continue
		}
		items = append(items, dstID)
	}
	return chunks, items, lost, nil
}

func (m *idMap) dstChunk(ctx context.Context, ref chunkRef) (int64, error) {
	byHash, ok := m.dstChunks[ref.session]
	if !ok {
		byHash = map[string]int64{}
		l, err := m.dst.Chunks(ctx, carryover.ChunkFilter{SessionID: ref.session, Turn: -1})
		if err != nil {
			return 0, fmt.Errorf("destination chunks: %w", err)
		}
		for _, ch := range l {
			byHash[ch.Hash] = ch.ID
		}
		m.dstChunks[ref.session] = byHash
	}
	return byHash[ref.hash], nil
}

func (m *idMap) loadSrcItems(ctx context.Context, session string) error {
	if m.srcLoaded[session] {
		return nil
	}
	l, err := m.src.Items(ctx, carryover.ItemFilter{SessionID: session})
	if err != nil {
		return fmt.Errorf("source items: %w", err)
	}
	for _, it := range l {
		m.srcItems[it.ID] = itemRef{session, it.Kind, it.Key}
	}
	m.srcLoaded[session] = true
	return nil
}

func (m *idMap) dstItem(ctx context.Context, ref itemRef) (int64, error) {
	byKey, ok := m.dstItems[ref.session]
	if !ok {
		byKey = map[itemRef]int64{}
		l, err := m.dst.Items(ctx, carryover.ItemFilter{SessionID: ref.session})
		if err != nil {
			return 0, fmt.Errorf("destination items: %w", err)
		}
		for _, it := range l {
			byKey[itemRef{ref.session, it.Kind, it.Key}] = it.ID
		}
		m.dstItems[ref.session] = byKey
	}
	return byKey[ref], nil
}
