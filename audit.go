package folio

import "time"

// AuditFilter selects audit entries: Action matches exactly, or as a prefix when it ends in "."
// or "*"; Actor matches a user id or a key id; From and To bound the time (inclusive, exclusive).
type AuditFilter struct {
	Action, Actor string
	From, To      *time.Time
	Page, Limit   int
}
