package analyticsdb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/foliohq/folio/internal/sqldb"
)

// anBatchValues returns the placeholders of a batch statement: rows groups of width values.
// SQLite gets anonymous "?" placeholders: it resolves each "$n" by a linear search of the ones
// seen so far (and the driver does the same when binding), which makes a statement with
// thousands of "$n" quadratic — it was most of the write cost. PostgreSQL gets "$n".
func (s *Store) anBatchValues(rows, width int) string {
	if s.db.Dialect != sqldb.SQLite {
		return anPlaceholders(1, rows, width)
	}
	group := "(" + strings.Repeat("?, ", width-1) + "?)"
	if width == 1 {
		group = "?"
	}
	return strings.Repeat(group+", ", rows-1) + group
}

// anPlaceholders returns rows groups of width $n placeholders starting at $first: "($1, $2), ($3, $4)"
// (width 1 gives "$1, $2, …" for IN lists).
func anPlaceholders(first, rows, width int) string {
	var b strings.Builder
	n := first
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		if width > 1 {
			b.WriteByte('(')
		}
		for c := 0; c < width; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		if width > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}

// anChunks yields consecutive pieces of s of at most n elements.
func anChunks[T any](s []T, n int) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

func anMapKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func anAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// wrap names the store method an error came from: "analyticsdb.Visits: …".
func wrap(method string, err error) error { return fmt.Errorf("analyticsdb.%s: %w", method, err) }
