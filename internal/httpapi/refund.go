package httpapi

import (
	"context"
	"net/http"

	"github.com/foliohq/folio"
)

// limitRefunder is a limiter that can give back one counted request (internal/ratelimit's
// Memory and Redis are).
type limitRefunder interface {
	Refund(ctx context.Context, key string) error
}

// refundHelperOnConflict gives back the helper-limit count of a request that lost a race
// (409 CONFLICT on book or reschedule): a visitor whose chosen time was taken a moment earlier
// must still be able to pick another one. The tier count stays.
func (s *Server) refundHelperOnConflict(r *http.Request, err error) {
	if err == nil || folio.ErrorCode(err) != folio.ECONFLICT {
		return
	}
	rf, ok := s.Limiter.(limitRefunder)
	if !ok {
		return
	}
	if rerr := rf.Refund(r.Context(), s.helperIPKey(r)); rerr != nil {
		s.log(r).Warn("helper limit not refunded after a conflict", "error", rerr.Error())
	}
}

// helperIPKey is the helper limit's key of a route counted per client (limitHelperIP): the route
// and the client as the per-IP limits name it (an IPv6 client by its prefix). The count and its
// refund both use it, so a refund gives back exactly what was counted.
func (s *Server) helperIPKey(r *http.Request) string {
	return "helper:" + r.Pattern + ":" + s.limitIP(r)
}
