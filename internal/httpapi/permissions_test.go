package httpapi

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
)

// access is a row of the permission table (docs/api.md, "Authentication and permissions"), as a
// rule over the six kinds of caller.
type access int

const (
	public         access = iota // anyone, with or without credentials
	anyCredential                // any authenticated caller (read key and up, any session)
	writeAccess                  // write or admin key, editor or owner session
	adminAccess                  // admin key or owner session
	manageArticles               // a session holding manage:articles (editor, owner) or an admin key
	signatureOnly                // credentials play no part (HMAC-signed webhook)
	sessionAccess                // a session (editor or owner); keys get 403 (TOTP, password)
)

// documentedRoute is one route's access and limit class as docs/api.md gives them. method "*"
// matches any method.
type documentedRoute struct {
	method, path string // path params written as {}
	access       access
	limit        limitClass
}

// documentedRoutes is a hand-written copy of the permission table and the helper-limit
// assignments (docs/api.md, "Authentication and permissions"). It is deliberately NOT derived
// from the route table: the walk below checks the route table against it. A route someone adds
// must get a row here, read off docs/api.md.
var documentedRoutes = []documentedRoute{
	// GET projects, blog, posts: public (write+ also sees drafts; the handlers decide that).
	{"GET", "/api/projects", public, limitTier},
	{"GET", "/api/projects/{}", public, limitTier},
	{"GET", "/api/blog", public, limitTier},
	{"GET", "/api/blog/{}", public, limitTier},
	{"GET", "/api/blog/feed.xml", public, limitTier}, // docs/api.md, "Feeds": the Atom feed is public
	// docs/api.md, "Search and tags": search, tags and the JSON Feed are public (search shows drafts to write+).
	{"GET", "/api/search", public, limitTier},
	{"GET", "/api/blog/tags", public, limitTier},
	{"GET", "/api/blog/feed.json", public, limitTier},
	{"GET", "/api/posts", public, limitTier},
	{"GET", "/api/posts/{}", public, limitTier},
	// POST/PUT/DELETE projects, blog, posts; publishing options; media upload; PUT profile: write.
	{"POST", "/api/projects", writeAccess, limitTier},
	{"PUT", "/api/projects/{}", writeAccess, limitTier},
	{"DELETE", "/api/projects/{}", writeAccess, limitTier},
	{"POST", "/api/blog", writeAccess, limitTier},
	{"PUT", "/api/blog/{}", writeAccess, limitTier},
	{"DELETE", "/api/blog/{}", writeAccess, limitTier},
	{"POST", "/api/posts", writeAccess, limitTier},
	{"PUT", "/api/posts/{}", writeAccess, limitTier},
	{"DELETE", "/api/posts/{}", writeAccess, limitTier},
	{"POST", "/api/articles/publishing-options", writeAccess, limitTier},
	{"POST", "/api/media/upload", writeAccess, limitTier},
	{"PUT", "/api/user/profile", writeAccess, limitTier},
	// AI image: write, plus the helper limit per key.
	{"POST", "/api/ai/generate-image", writeAccess, limitHelperKey},
	// GET profile: any authenticated caller.
	{"GET", "/api/user/profile", anyCredential, limitTier},
	// Analytics reports, keys, contact inbox: admin.
	{"GET", "/api/analytics", adminAccess, limitTier},
	{"GET", "/api/analytics/projects/{}", adminAccess, limitTier},
	// docs/api.md, "Breakdowns, realtime": breakdowns and realtime are admin only, like the report.
	{"GET", "/api/analytics/breakdown", adminAccess, limitTier},
	{"GET", "/api/analytics/realtime", adminAccess, limitTier},
	{"GET", "/api/keys", adminAccess, limitTier},
	{"POST", "/api/keys", adminAccess, limitTier},
	{"DELETE", "/api/keys/{}", adminAccess, limitTier},
	// Webhooks and the export are admin routes (docs/api.md, "Outgoing webhooks", "Export").
	{"POST", "/api/webhooks", adminAccess, limitTier},
	{"GET", "/api/webhooks", adminAccess, limitTier},
	{"DELETE", "/api/webhooks/{}", adminAccess, limitTier},
	{"POST", "/api/webhooks/{}/test", adminAccess, limitTier},
	{"GET", "/api/webhooks/{}/deliveries", adminAccess, limitTier},
	{"GET", "/api/export", adminAccess, limitTier},
	// Settings: owner session or admin key (docs/api.md, "Settings").
	{"GET", "/api/settings", adminAccess, limitTier},
	{"PUT", "/api/settings", adminAccess, limitTier},
	{"POST", "/api/settings/mail/test", adminAccess, limitTier},
	{"GET", "/api/contact/messages", adminAccess, limitTier},
	// Extblog dashboard routes: manage:articles session or admin key.
	{"*", "/api/extblog/publish", manageArticles, limitTier},
	{"*", "/api/extblog/unpublish", manageArticles, limitTier},
	{"*", "/api/extblog/delete", manageArticles, limitTier},
	// Webhook: HMAC only, exempt from the tier limits.
	{"POST", "/api/extblog/webhook", signatureOnly, limitExempt},
	// docs/api.md, "Fediverse": the actor's documents are public, the inbox takes HTTP
	// Signatures only; followers and blocks are the owner's.
	{"GET", "/.well-known/webfinger", public, limitTier},
	{"GET", "/ap/actor", public, limitTier},
	{"GET", "/ap/outbox", public, limitTier},
	{"GET", "/ap/followers", public, limitTier},
	{"GET", "/ap/posts/{}", public, limitTier},
	{"GET", "/ap/notes/{}", public, limitTier},
	{"POST", "/ap/inbox", signatureOnly, limitTier},
	{"DELETE", "/api/fediverse/followers", adminAccess, limitTier},
	{"*", "/api/fediverse/blocks", adminAccess, limitTier},
	// docs/api.md, "Webmention", "Comments": receiving and reading are public, moderation the owner's.
	{"POST", "/webmention", public, limitTier},
	{"GET", "/api/blog/{}/comments", public, limitTier},
	{"GET", "/api/comments", adminAccess, limitTier},
	{"POST", "/api/comments/{}/approve", adminAccess, limitTier},
	{"POST", "/api/comments/{}/reject", adminAccess, limitTier},
	{"POST", "/api/comments/{}/spam", adminAccess, limitTier},
	{"POST", "/api/comments/{}/reply", adminAccess, limitTier},
	// Public plus the helper limit per client IP (login: the sign-in failure limit).
	{"POST", "/api/contact", public, limitHelperIP},
	{"POST", "/api/schedule/book", public, limitHelperIP},
	{"POST", "/api/auth/login", public, limitSignIn},
	// Public.
	{"GET", "/api/schedule/available", public, limitTier},
	{"POST", "/api/schedule/check-conflict", public, limitTier},
	{"POST", "/api/analytics/collect", public, limitTier},

	// Routes beyond the original permission table: folio's decisions (docs/api.md).
	{"POST", "/api/auth/logout", public, limitTier},
	{"GET", "/api/auth/session", public, limitTier},
	{"GET", "/api/openapi.json", public, limitTier},
	{"GET", "/api/docs", public, limitTier},
	{"GET", "/api/media", writeAccess, limitTier},       // the dashboard's media library, like upload
	{"DELETE", "/api/media/{}", writeAccess, limitTier}, // docs/api.md, "Media and AI images"
	{"GET", "/api/mail/outbox", adminAccess, limitTier}, // mail folio sent or failed to send, like the contact inbox

	// Analytics routes beyond the report: the funnel is a report like GET /api/analytics;
	// the tracking script is loaded by every page of the public site.
	{"GET", "/api/analytics/funnel", adminAccess, limitTier},
	{"GET", "/api/analytics/script.js", public, limitTier},
	{"GET", "/api/analytics/measure.js", public, limitTier},
	// Analytics that report and connect (docs/api.md, "Conversions", "Shared dashboards",
	// "Automatic measurements", "Import"): admin like the report; a shared link's routes are
	// public (the token is the credential), its unlock under the helper limit.
	{"GET", "/api/analytics/conversions", adminAccess, limitTier},
	{"GET", "/api/analytics/measurements", adminAccess, limitTier},
	{"POST", "/api/analytics/import", adminAccess, limitTier},
	{"POST", "/api/analytics/shares", adminAccess, limitTier},
	{"GET", "/api/analytics/shares", adminAccess, limitTier},
	{"DELETE", "/api/analytics/shares/{}", adminAccess, limitTier},
	{"GET", "/api/analytics/shared/{}", public, limitTier},
	{"GET", "/api/analytics/shared/{}/breakdown", public, limitTier},
	{"GET", "/api/analytics/shared/{}/realtime", public, limitTier},
	{"POST", "/api/analytics/shared/{}/unlock", public, limitHelperIP},
	// The local calendar provider's event link: an unguessable URL serving the booking's .ics.
	{"GET", "/api/schedule/events/{}", public, limitTier},
	// The owner's list of confirmed bookings (dashboard), like the contact inbox.
	{"GET", "/api/schedule/bookings", adminAccess, limitTier},
	// The dashboard's helpers (docs/api.md, Dashboard): the sign-in form's "no user yet" signal is
	// public; which features are configured needs any credentials; the Markdown preview needs
	// write, like saving the post it previews.
	{"GET", "/api/setup", public, limitTier},
	{"GET", "/api/features", anyCredential, limitTier},
	{"POST", "/api/blog/preview", writeAccess, limitTier},
	// docs/api.md, "Booking lifecycle": the manage token is the visitor's credential; helper-limited like book.
	{"GET", "/api/schedule/bookings/{}", public, limitHelperIP},
	{"GET", "/api/schedule/bookings/{}/invite.ics", public, limitHelperIP},
	{"POST", "/api/schedule/bookings/{}/cancel", public, limitHelperIP},
	{"POST", "/api/schedule/bookings/{}/reschedule", public, limitHelperIP},
	{"POST", "/api/schedule/bookings/id/{}/cancel", adminAccess, limitTier},
	{"GET", "/api/schedule/days", public, limitTier},
	{"GET", "/api/schedule/types", public, limitTier},
	{"POST", "/api/schedule/types", adminAccess, limitTier},
	{"PUT", "/api/schedule/types/{}", adminAccess, limitTier},
	{"DELETE", "/api/schedule/types/{}", adminAccess, limitTier},
	{"GET", "/api/schedule/overrides", adminAccess, limitTier},
	{"PUT", "/api/schedule/overrides/{}", adminAccess, limitTier},
	{"DELETE", "/api/schedule/overrides/{}", adminAccess, limitTier},

	// Sign-in hardening and the audit log (docs/api.md, "Authentication and permissions").
	{"POST", "/api/auth/login/totp", public, limitSignIn},
	{"POST", "/api/auth/sessions/revoke", sessionAccess, limitTier},
	{"POST", "/api/auth/password", sessionAccess, limitSignIn},
	{"GET", "/api/auth/totp", anyCredential, limitTier},
	{"POST", "/api/auth/totp/setup", sessionAccess, limitTier},
	{"POST", "/api/auth/totp/enable", sessionAccess, limitTier},
	{"POST", "/api/auth/totp/disable", sessionAccess, limitSignIn},
	{"GET", "/api/audit", adminAccess, limitTier},

	// Passkeys (docs/api.md, "Passkeys"): registering and changing them needs a session of the
	// user (keys get 403 in the handler); signing in with one is public, under the sign-in limit.
	{"POST", "/api/auth/passkeys/register/begin", sessionAccess, limitTier},
	{"POST", "/api/auth/passkeys/register/finish", sessionAccess, limitTier},
	{"GET", "/api/auth/passkeys", anyCredential, limitTier},
	{"PATCH", "/api/auth/passkeys/{}", sessionAccess, limitTier},
	{"DELETE", "/api/auth/passkeys/{}", sessionAccess, limitTier},
	{"POST", "/api/auth/passkeys/login/begin", public, limitTier},
	{"POST", "/api/auth/passkeys/login/finish", public, limitSignIn},
	{"POST", "/api/auth/login/passkey", public, limitSignIn},
	// Sign-in links (docs/api.md, "Sign-in links").
	{"POST", "/api/auth/link", public, limitHelperIP},
	{"POST", "/api/auth/link/verify", public, limitSignIn},
	// Identity providers (docs/api.md, "Identity providers"): signing in is public; linking an
	// account needs a session of the user.
	{"GET", "/api/auth/providers", public, limitTier},
	{"GET", "/api/auth/oidc/{}/start", public, limitTier},
	{"GET", "/api/auth/oidc/{}/callback", public, limitTier},
	{"POST", "/api/auth/oidc/{}/link", sessionAccess, limitTier},

	// Subscribers (docs/api.md, "Subscribers"): subscribing and the confirm link are public and
	// helper-limited like the contact form; the list is the owner's.
	{"POST", "/api/subscribers", public, limitHelperIP},
	{"POST", "/api/subscribers/confirm/{}", public, limitHelperIP},
	{"POST", "/unsubscribe/{}", public, limitHelperIP}, // RFC 8058 one-click, no session
	{"GET", "/api/subscribers", adminAccess, limitTier},
	{"GET", "/api/subscribers/export", adminAccess, limitTier},
	{"POST", "/api/subscribers/import", adminAccess, limitTier},
	{"DELETE", "/api/subscribers/{}", adminAccess, limitTier},
	// Newsletters (docs/api.md, "Newsletters"): a post's mailing is for those who publish it; the
	// preferences page is the unsubscribe link's token's; provider events are signed.
	{"GET", "/api/posts/{}/newsletter", writeAccess, limitTier},
	{"GET", "/api/posts/{}/newsletter/preview", writeAccess, limitTier},
	{"POST", "/api/posts/{}/newsletter/test", writeAccess, limitHelperKey},
	{"GET", "/api/subscribers/preferences/{}", public, limitTier},
	{"PUT", "/api/subscribers/preferences/{}", public, limitTier},
	{"POST", "/api/subscribers/events", signatureOnly, limitExempt},
}

// callers are the six kinds of caller the walk tries on every route.
var callers = []string{"", "read", "write", "admin", "editor", "owner"}

// want says whether a caller gets in under a rule: 0 means "allowed" (any answer but 401/403).
func (a access) want(who string) int {
	switch a {
	case anyCredential:
		if who == "" {
			return 401
		}
	case writeAccess:
		switch who {
		case "":
			return 401
		case "read":
			return 403
		}
	case adminAccess:
		switch who {
		case "":
			return 401
		case "read", "write", "editor":
			return 403
		}
	case manageArticles:
		switch who {
		case "":
			return 401
		case "read", "write":
			return 403
		}
	case sessionAccess:
		switch who {
		case "":
			return 401
		case "read", "write", "admin":
			return 403
		}
	}
	return 0
}

var pathParam = regexp.MustCompile(`\{[^}]*\}`)

func lookupDocumented(method, pattern string) (documentedRoute, bool) {
	p := pathParam.ReplaceAllString(pattern, "{}")
	for _, c := range documentedRoutes {
		if c.path == p && (c.method == method || c.method == "*") {
			return c, true
		}
	}
	return documentedRoute{}, false
}

// TestPermissionWalk sends every route in the table a request from each kind of caller (no
// credentials, read/write/admin keys, editor and owner sessions, all real) and checks the answer
// against documentedRoutes: 401 without credentials where some are needed, 403 when they are too
// weak, and anything else when they suffice. It also checks each route's limit class.
func TestPermissionWalk(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{}, func(s *Server) {
		s.Limits = Limits{Public: 1 << 20, Authenticated: 1 << 20, Admin: 1 << 20, Helper: 1 << 20}
	})
	seen := map[string]bool{}
	for _, rt := range f.routes {
		c, ok := lookupDocumented(rt.Method, rt.Pattern)
		if !ok {
			t.Errorf("%s %s is not in documentedRoutes (permissions_test.go): add the row docs/api.md gives it", rt.Method, rt.Pattern)
			continue
		}
		seen[c.method+" "+c.path] = true
		if rt.Limit != c.limit {
			t.Errorf("%s %s: limit class %s, docs/api.md says %s", rt.Method, rt.Pattern, limitName(rt.Limit), limitName(c.limit))
		}
		path := pathParam.ReplaceAllString(rt.Pattern, "0190a0b0-0000-7000-8000-000000000000")
		path = strings.ReplaceAll(path, "...", "")
		var body any
		if rt.Method != "GET" && rt.Method != "DELETE" {
			body = map[string]any{}
		}
		statuses := map[string]int{}
		for _, who := range callers {
			if rt.Pattern == "/api/auth/sessions/revoke" && (who == "editor" || who == "owner") {
				// The editor's own call ends the editor's sessions: sign in afresh.
				f.OwnerCookie, f.EditorCookie = f.login(t, "owner@example.com"), f.login(t, "editor@example.com")
			}
			res := f.as(who, rt.Method, path, body)
			statuses[who] = res.Status
			want := c.access.want(who)
			switch {
			case c.access == signatureOnly:
			case want != 0 && res.Status != want:
				t.Errorf("%s %s as %s: got %d %s, want %d", rt.Method, rt.Pattern, callerName(who), res.Status, res.Body, want)
			case want == 0 && (res.Status == 401 || res.Status == 403):
				t.Errorf("%s %s as %s: got %d %s, want the caller let in", rt.Method, rt.Pattern, callerName(who), res.Status, res.Body)
			case want != 0:
				code := res.errorCode(t)
				if (want == 401 && code != "AUTHENTICATION_REQUIRED") || (want == 403 && code != "PERMISSION_DENIED") {
					t.Errorf("%s %s as %s: code %s for %d", rt.Method, rt.Pattern, callerName(who), code, want)
				}
			}
		}
		if rt.Pattern == "/api/auth/sessions/revoke" {
			f.OwnerCookie, f.EditorCookie = f.login(t, "owner@example.com"), f.login(t, "editor@example.com")
		}
		if c.access == signatureOnly {
			for _, who := range callers {
				if statuses[who] != statuses[""] {
					t.Errorf("%s %s: credentials changed the answer (%v); only the signature may count", rt.Method, rt.Pattern, statuses)
					break
				}
			}
		}
	}
	var missing []string
	for _, c := range documentedRoutes {
		if !seen[c.method+" "+c.path] {
			missing = append(missing, c.method+" "+c.path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		// Not an error while other parts of folio are being built; every one must exist when done.
		t.Logf("documented routes not (yet) in the route table: %s", strings.Join(missing, ", "))
	}
}

func callerName(who string) string {
	switch who {
	case "":
		return "nobody"
	case "editor", "owner":
		return who + " session"
	}
	return who + " key"
}

// TestPermissionWalkCatchesDrift makes sure the walk can fail: a route row that is weaker than the
// documentation is reported.
func TestPermissionWalkCatchesDrift(t *testing.T) {
	c, ok := lookupDocumented("DELETE", "/api/keys/{id}")
	if !ok || c.access != adminAccess {
		t.Fatalf("documented row for DELETE /api/keys/{id}: %+v %v", c, ok)
	}
	if c.access.want("write") != 403 || c.access.want("editor") != 403 || c.access.want("admin") != 0 || c.access.want("") != 401 {
		t.Error("admin rule answers wrongly")
	}
	if manageArticles.want("editor") != 0 || manageArticles.want("write") != 403 || manageArticles.want("admin") != 0 {
		t.Error("manage:articles rule answers wrongly")
	}
	if _, ok := lookupDocumented("GET", "/api/made-up"); ok {
		t.Error("an unknown route matched a documented row")
	}
}
