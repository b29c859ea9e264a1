package media

import (
	"errors"
	"io"
	"sort"
)

// edits turns what parsing found into the edits of the input, in order: the deleted bytes, and
// the new values of every size, count and offset that changes.
func (s *isoStripper) edits() ([]isoEdit, error) {
	for _, d := range s.itemData {
		inside := false
		for _, m := range s.mdats {
			inside = inside || (d.start >= m.start && d.end <= m.end)
		}
		if !inside {
			return nil, errMalformed
		}
	}
	dels := mergeSpans(append(s.deleted, s.itemData...))
	prefix := make([]int64, len(dels)+1) // bytes deleted before dels[i]
	for i, d := range dels {
		prefix[i+1] = prefix[i] + d.end - d.start
	}
	deletedBefore := func(x int64) int64 {
		i := sort.Search(len(dels), func(i int) bool { return dels[i].end > x })
		if i < len(dels) && dels[i].start < x {
			return prefix[i] + x - dels[i].start
		}
		return prefix[i]
	}
	// deletedIn counts the deleted bytes of sp: an offset x of the input is x - deletedIn({0, x})
	// in the output, a distance from a to b is b - a - deletedIn({a, b}).
	deletedIn := func(sp span) int64 { return deletedBefore(sp.end) - deletedBefore(sp.start) }
	var out []isoEdit
	for _, d := range dels {
		out = append(out, isoEdit{pos: d.start, n: d.end - d.start})
	}
	out = append(out, s.fixed...)
	set := func(f uintField, v int64) {
		if uint64(v) != f.v {
			out = append(out, isoEdit{pos: f.pos, n: int64(f.width), data: putUint(f.width, uint64(v))})
		}
	}
	for _, b := range s.kept {
		if n := deletedIn(span{b.start, b.end}); n > 0 && !b.toEOF {
			if b.payload-b.start == 16 {
				set(uintField{pos: b.start + 8, width: 8}, b.end-b.start-n)
			} else {
				set(uintField{pos: b.start, width: 4}, b.end-b.start-n)
			}
		}
	}
	for _, m := range s.metas {
		for _, it := range m.locs {
			if it.dataRef != 0 || it.construction == 2 {
				continue // offsets into another file or into other items
			}
			origin := int64(0)
			if it.construction == 1 {
				if m.idatStart < 0 {
					return nil, errMalformed
				}
				origin = m.idatStart
			}
			if it.base.v > 1<<62 {
				return nil, errMalformed
			}
			from := origin + int64(it.base.v)
			set(it.base, from-origin-deletedIn(span{origin, from}))
			for _, e := range it.extents {
				if e[0].v > 1<<62 || e[1].v > 1<<62 {
					return nil, errMalformed
				}
				start := from + int64(e[0].v)
				if deletedIn(span{start, start + max(int64(e[1].v), 1)}) > 0 {
					return nil, errMalformed // a kept item's bytes would be cut
				}
				set(e[0], start-from-deletedIn(span{from, start}))
			}
		}
	}
	for _, c := range s.chunks {
		if c.v > 1<<62 || deletedIn(span{int64(c.v), int64(c.v) + 1}) > 0 {
			return nil, errMalformed
		}
		set(c, int64(c.v)-deletedIn(span{0, int64(c.v)}))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	for i := 1; i < len(out); i++ {
		if out[i].pos < out[i-1].pos+out[i-1].n {
			return nil, errMalformed // a rewritten field inside deleted bytes: overlapping structures
		}
	}
	return out, nil
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(in []span) []span {
	sort.Slice(in, func(i, j int) bool { return in[i].start < in[j].start })
	var out []span
	for _, sp := range in {
		if n := len(out); n > 0 && sp.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// write copies the input to w with the edits applied.
func (s *isoStripper) write(w io.Writer, edits []isoEdit, end int64) error {
	if _, err := s.r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var pos int64
	for _, e := range edits {
		if _, err := io.CopyN(w, s.r, e.pos-pos); err != nil {
			return errors.Join(errMalformed, err)
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
		if _, err := s.r.Seek(e.pos+e.n, io.SeekStart); err != nil {
			return err
		}
		pos = e.pos + e.n
	}
	_, err := io.CopyN(w, s.r, end-pos)
	return err
}
