package sqldb

import (
	"fmt"
	"strconv"
	"strings"
)

// wrap names the store method an error came from: "sqldb.Posts: …".
func wrap(method string, err error) error { return fmt.Errorf("sqldb.%s: %w", method, err) }

// wrapIf is wrap for an error that may be nil.
func wrapIf(method string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(method, err)
}

// Args collects a statement's arguments while its text is built, numbering their placeholders
// $1, $2… in the order they are added.
type Args []any

// Add appends v and returns its placeholder.
func (a *Args) Add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// AddList appends every value and returns their placeholders, comma-separated (for IN lists).
func (a *Args) AddList(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = a.Add(v)
	}
	return strings.Join(ph, ", ")
}
