package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/foliohq/folio"
)

// needLevel is the in-handler form of a route row's level, for a part of a route that needs
// more than the route itself (listing drafts on a public list): 401 without credentials, 403
// with too weak ones, exactly as adapt answers.
func needLevel(r *http.Request, l folio.Level, what string) error {
	a := folio.ActorFrom(r.Context())
	switch {
	case !a.Authenticated():
		return folio.Errorf(folio.EUNAUTHORIZED, "Listing %s needs an API key (Authorization: Bearer …) or a session with %s access.", what, l)
	case !a.AtLeast(l):
		return folio.Errorf(folio.EFORBIDDEN, "Listing %s needs %s access; your credentials have %s access.", what, l, a.Level)
	}
	return nil
}

// listStatuses reads the status filter of a public list (projects, posts): a comma list of
// published, draft and archived. Callers below write level see published items only: no filter
// means published for them, and asking for another status answers as needLevel does. It returns
// nil (every status) for write+ callers without a filter.
func listStatuses(r *http.Request, what string) ([]string, error) {
	all := folio.ActorFrom(r.Context()).AtLeast(folio.LevelWrite)
	st := r.URL.Query().Get("status")
	if st == "" {
		if all {
			return nil, nil
		}
		return []string{"published"}, nil
	}
	var out []string
	for _, v := range strings.Split(st, ",") {
		v = strings.TrimSpace(v)
		switch v {
		case "published", "draft", "archived":
		default:
			return nil, folio.BadRequest("status", "must be published, draft or archived")
		}
		if v != "published" && !all {
			return nil, needLevel(r, folio.LevelWrite, v+" "+what)
		}
		if !slices.Contains(out, v) { // each once, so the statement has at most three
			out = append(out, v)
		}
	}
	return out, nil
}
