package httpapi

import (
	"context"
	"net/netip"

	"github.com/foliohq/folio"
)

// requestRecord is what the inner layers learn about one request that the outermost middleware
// reports once the request is done (the access log; the audit log too). outer places a pointer
// to it in the request's context before anything else runs, and serve fills it in once the
// actor is known. It exists because the inner layers work on copies of the request
// (r.WithContext) that outer never sees: a value set on such a copy's context is lost to it.
//
// One request is served by one goroutine, so the record needs no lock.
type requestRecord struct {
	// ID is the request id (X-Request-Id).
	ID string
	// Actor is the authenticated caller (the zero Actor for an anonymous one).
	Actor folio.Actor

	// auditUserID and auditResourceID are what a handler adds to the audit entry (a sign-in
	// names its user only once the password is checked).
	auditUserID, auditResourceID string

	// client is the client's address, resolved once (Server.clientAddr): the rate limit, the
	// audit entry and the access log each need it.
	client         netip.Addr
	clientOK       bool
	clientResolved bool
}

type requestRecordKey struct{}

func withRequestRecord(ctx context.Context, rec *requestRecord) context.Context {
	return context.WithValue(ctx, requestRecordKey{}, rec)
}

// recordOf returns the request's record, or nil outside outer (a handler called directly).
func recordOf(ctx context.Context) *requestRecord {
	rec, _ := ctx.Value(requestRecordKey{}).(*requestRecord)
	return rec
}

// noteActor records who the request acts as, for the logs of outer. A handler that changes who
// the caller is (a sign-in) may call it again.
func noteActor(ctx context.Context, a folio.Actor) {
	if rec := recordOf(ctx); rec != nil {
		rec.Actor = a
	}
}
