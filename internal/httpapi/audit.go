package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
)

// auditSubject lets a handler name the user (and resource) of its audit entry when the request
// carried no credentials: the user who signed in, or tried to.
func auditSubject(r *http.Request, userID, resourceID string) {
	if n := recordOf(r.Context()); n != nil {
		n.auditUserID, n.auditResourceID = userID, resourceID
	}
}

// recordEvent writes an audit entry of its own, in userID's name, for something a request caused
// beyond what its own entry says (a sign-in ticket that wrong codes used up).
func (s *Server) recordEvent(r *http.Request, action, userID string, status int) {
	if s.Audit == nil {
		return
	}
	s.Audit.Record(folio.AuditEntry{Actor: folio.AuditActor{UserID: userID}, Action: action, Resource: "auth",
		IP: audit.Network(s.clientIP(r)), Status: status, At: s.now()})
}

// recordAudit writes the audit entry of a request that warrants one (docs/api.md, Authentication and permissions): every unsafe
// request by a key or session, and every request to a route marked AuditAlways (sign-in),
// whatever its outcome. It runs in the route table's layer, so no handler has to remember it.
func (s *Server) recordAudit(w http.ResponseWriter, r *http.Request, rt route, n *requestRecord) {
	if s.Audit == nil || rt.Audit == "-" || rt.Pattern == "" {
		return
	}
	unsafe := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	if !rt.AuditAlways && !(unsafe && n.Actor.Authenticated()) {
		return
	}
	status := http.StatusOK
	if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
		status = sw.status
	}
	action, resource := auditAction(rt)
	e := folio.AuditEntry{Actor: folio.AuditActor{UserID: n.Actor.UserID, KeyID: n.Actor.KeyID}, Action: action,
		Resource: resource, IP: audit.Network(s.clientIP(r)), Status: status, At: s.now()}
	if status == http.StatusTooManyRequests {
		// A refusal by a rate limit is counted, not recorded: one row per client, action and
		// window (docs/api.md, "Audit log"), so a flood of refused sign-ins cannot grow the log.
		client := s.refusalClient(r, n.Actor, &e)
		s.Audit.RecordRefused(e, client, s.Limits.Window)
		return
	}
	if e.Actor.UserID == "" {
		e.Actor.UserID = n.auditUserID
	}
	e.ResourceID = n.auditResourceID
	if e.ResourceID == "" {
		e.ResourceID = pathResourceID(r, rt.Pattern)
	}
	if e.ResourceID == "" && status == http.StatusCreated {
		if loc := w.Header().Get("Location"); loc != "" {
			e.ResourceID = loc[strings.LastIndexByte(loc, '/')+1:]
		}
	}
	s.Audit.Record(e)
}

// refusalClient names the client whose refusals e is counted with: the credential the tier
// limit counts, or for an anonymous caller its network. That network is the audit log's (IPv4
// /24, IPv6 /48), or the per-IP limits' IPv6 prefix when that is wider, so a client never gets
// more rows by moving inside the range the limits count as one; e.IP is set to it.
func (s *Server) refusalClient(r *http.Request, a folio.Actor, e *folio.AuditEntry) string {
	if a.Authenticated() {
		return credentialID(a)
	}
	if addr, ok := s.clientAddr(r); ok && addr.Unmap().Is6() && s.Limits.IPv6Prefix > 0 && s.Limits.IPv6Prefix < 48 {
		e.IP = s.limitIP(r)
	}
	return e.IP
}

// auditAction names a route's action: its Audit field, else the pattern's fixed segments joined
// by dots, plus create/update/delete when the pattern ends at a collection or an item
// ("POST /api/projects" → projects.create, "DELETE /api/keys/{id}" → keys.delete,
// "POST /api/schedule/bookings/{token}/cancel" → schedule.bookings.cancel). The resource is the
// first segment after /api/.
func auditAction(rt route) (action, resource string) {
	segs := strings.Split(strings.Trim(strings.TrimPrefix(rt.Pattern, "/api/"), "/"), "/")
	var fixed []string
	for _, sg := range segs {
		if !strings.HasPrefix(sg, "{") {
			fixed = append(fixed, sg)
		}
	}
	if len(fixed) > 0 {
		resource = fixed[0]
	}
	if rt.Audit != "" {
		return rt.Audit, resource
	}
	action = strings.Join(fixed, ".")
	if len(fixed) == 1 || strings.HasPrefix(segs[len(segs)-1], "{") {
		switch rt.Method {
		case http.MethodPost:
			action += ".create"
		case http.MethodPut, http.MethodPatch:
			action += ".update"
		case http.MethodDelete:
			action += ".delete"
		}
	}
	return action, resource
}

// pathResourceID is the value of the pattern's first {name} segment (a {token}'s digest: the
// audit log keeps no secret).
func pathResourceID(r *http.Request, pattern string) string {
	for _, sg := range strings.Split(pattern, "/") {
		if sg == tokenWildcard {
			return tokenDigest(r.PathValue("token"))
		}
		if strings.HasPrefix(sg, "{") {
			return r.PathValue(strings.TrimSuffix(strings.Trim(sg, "{}"), "..."))
		}
	}
	return ""
}

// auditAPI serves the audit log to admins.
type auditAPI struct{ *Server }

func (s auditAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/audit", Handle: s.listAudit, Level: folio.LevelAdmin,
			Tag: "Audit", Summary: "The audit log, newest first: writes by keys and sessions, sign-ins, TOTP changes, key and session revocations; actor.name and actor.email name the user",
			Query: []param{
				{Name: "action", Type: "string", Doc: "exact action (auth.login), or a prefix ending in . or * (auth.*)"},
				{Name: "actor", Type: "string", Doc: "a user id, a user's email or an API key id"},
				{Name: "from", Type: "string", Doc: "RFC 3339 time, entries at or after it; or a date (YYYY-MM-DD, UTC), from its start"},
				{Name: "to", Type: "string", Doc: "RFC 3339 time, entries before it; or a date (YYYY-MM-DD, UTC), through its end"},
				pageParam, limitParam},
			Status: http.StatusOK, Resp: auditList{}},
	}
}

type auditList struct {
	Entries []folio.AuditEntry `json:"entries"`
	Total   int                `json:"total"`
	Page    int                `json:"page"`
	Limit   int                `json:"limit"`
}

func (s auditAPI) listAudit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	f := folio.AuditFilter{Action: strings.TrimSpace(q.Get("action")), Actor: strings.TrimSpace(q.Get("actor")), Page: page, Limit: limit}
	var users []*folio.User
	if s.Users != nil {
		if users, err = s.Users.Users(r.Context()); err != nil {
			return err
		}
	}
	// An email names a user: the filter is that user's id.
	if strings.Contains(f.Actor, "@") {
		for _, u := range users {
			if strings.EqualFold(u.Email, f.Actor) {
				f.Actor = u.ID
				break
			}
		}
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := strings.TrimSpace(q.Get(p.name)); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				// A bare date, as the analytics range takes: the whole day in UTC, so
				// from=D starts at D's midnight and to=D ends at the next one.
				d, derr := time.Parse(time.DateOnly, v)
				if derr != nil {
					return folio.BadRequest(p.name, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z or a date (YYYY-MM-DD)")
				}
				if p.name == "to" {
					d = d.AddDate(0, 0, 1)
				}
				t = d
			}
			*p.dst = &t
		}
	}
	if s.Audit != nil {
		// Entries still queued on this instance are written first, so the list is current.
		if err := s.Audit.Flush(r.Context()); err != nil {
			s.log(r).Warn("audit log: flush before listing failed", "error", err.Error())
		}
	}
	entries, total, err := s.AuditLog.AuditEntries(r.Context(), f)
	if err != nil {
		return err
	}
	byID := make(map[string]*folio.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	for i := range entries {
		if u := byID[entries[i].Actor.UserID]; u != nil {
			entries[i].Actor.Name, entries[i].Actor.Email = u.Name, u.Email
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, auditList{Entries: entries, Total: total, Page: page, Limit: limit})
}
