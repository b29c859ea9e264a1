package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/fediverse"
)

// fediverseAPI serves the site's ActivityPub actor and WebFinger (docs/api.md, "Fediverse").
type fediverseAPI struct{ *Server }

// activityJSON is the media type of ActivityPub documents.
const activityJSON = "application/activity+json"

// maxInboxBody bounds one activity posted to the inbox.
const maxInboxBody = 1 << 20

func (s fediverseAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/.well-known/webfinger", Handle: s.webfinger, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "WebFinger (RFC 7033): acct:NAME@HOST of the site's actor → its links; unknown → 404",
			Query:  []param{{Name: "resource", Type: "string", Doc: "acct:NAME@HOST or the actor's URL", Required: true}},
			Status: http.StatusOK, Resp: fediverse.JRD{}, RespType: "application/jrd+json", Errors: []int{404}},
		{Method: "GET", Pattern: "/ap/actor", Handle: s.actor, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "The site's ActivityPub actor (Person) with its public key",
			Status: http.StatusOK, Resp: fediverse.Actor{}, RespType: activityJSON},
		{Method: "GET", Pattern: "/ap/outbox", Handle: s.outbox, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "The actor's outbox: Create{Article} of the newest published posts",
			Status: http.StatusOK, Resp: fediverse.Collection{}, RespType: activityJSON},
		{Method: "GET", Pattern: "/ap/followers", Handle: s.followers, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "The actor's followers: totalItems for anyone, the accounts for an admin",
			Status: http.StatusOK, Resp: fediverse.Collection{}, RespType: activityJSON},
		{Method: "GET", Pattern: "/ap/posts/{id}", Handle: s.article, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "A published post as an ActivityPub Article",
			Status: http.StatusOK, Resp: fediverse.Article{}, RespType: activityJSON, Errors: []int{404}},
		{Method: "GET", Pattern: "/ap/notes/{id}", Handle: s.note, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "The owner's reply to a comment as an ActivityPub Note",
			Status: http.StatusOK, Resp: fediverse.Note{}, RespType: activityJSON, Errors: []int{404}},
		{Method: "POST", Pattern: "/ap/inbox", Handle: s.inbox, Needs: needFediverse, Audit: "-",
			Tag: "Fediverse", Summary: "The actor's (and shared) inbox: HTTP-Signed activities only (draft-cavage-12, rsa-sha256 " +
				"over (request-target) host date digest, Date within 5 minutes, matching Digest), else 401; Follow is accepted (202)",
			BodyType: activityJSON, Status: http.StatusAccepted, Errors: []int{401, 413, 502}},
		{Method: "DELETE", Pattern: "/api/fediverse/followers", Handle: s.removeFollower, Needs: needFediverse, Level: folio.LevelAdmin,
			Tag: "Fediverse", Summary: "Remove a follower (it receives no more deliveries)",
			Query:  []param{{Name: "actor", Type: "string", Doc: "the follower's actor id", Required: true}},
			Status: http.StatusNoContent, Errors: []int{404}},
		{Method: "GET", Pattern: "/api/fediverse/blocks", Handle: s.blocks, Needs: needFediverse, Level: folio.LevelAdmin,
			Tag: "Fediverse", Summary: "The blocked actors and domains, newest first", Status: http.StatusOK, Resp: blockList{}},
		{Method: "POST", Pattern: "/api/fediverse/blocks", Handle: s.block, Needs: needFediverse, Level: folio.LevelAdmin,
			Tag: "Fediverse", Summary: "Block an actor or a whole domain: its follows end, its activities are refused (403), its Webmentions ignored",
			Body: fediverse.BlockInput{}, Status: http.StatusCreated, Resp: folio.Block{}, Errors: []int{413, 415}},
		{Method: "DELETE", Pattern: "/api/fediverse/blocks", Handle: s.unblock, Needs: needFediverse, Level: folio.LevelAdmin,
			Tag: "Fediverse", Summary: "Lift a block",
			Query:  []param{{Name: "target", Type: "string", Doc: "the blocked actor id or domain", Required: true}},
			Status: http.StatusNoContent, Errors: []int{404}},
	}
}

type blockList struct {
	Blocks []folio.Block `json:"blocks"`
}

func (s fediverseAPI) blocks(w http.ResponseWriter, r *http.Request) error {
	bs, err := s.Fediverse.Store.Blocks(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, blockList{Blocks: bs})
}

func (s fediverseAPI) block(w http.ResponseWriter, r *http.Request) error {
	var in fediverse.BlockInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	b, err := s.Fediverse.Block(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, b)
}

func (s fediverseAPI) unblock(w http.ResponseWriter, r *http.Request) error {
	target := r.URL.Query().Get("target")
	if target == "" {
		return folio.BadRequest("target", "is required")
	}
	ok, err := s.Fediverse.Store.Unblock(r.Context(), target)
	if err != nil {
		return err
	}
	if !ok {
		return folio.Errorf(folio.ENOTFOUND, "%s is not blocked.", target)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func writeActivity(w http.ResponseWriter, contentType string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}

func (s fediverseAPI) webfinger(w http.ResponseWriter, r *http.Request) error {
	res := r.URL.Query().Get("resource")
	if res == "" {
		return folio.BadRequest("resource", "is required")
	}
	jrd, err := s.Fediverse.WebFinger(res, r.Host)
	if err != nil {
		return err
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	return writeActivity(w, "application/jrd+json", jrd)
}

func (s fediverseAPI) actor(w http.ResponseWriter, r *http.Request) error {
	return writeActivity(w, activityJSON, s.Fediverse.Actor())
}

func (s fediverseAPI) outbox(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Fediverse.Outbox(r.Context())
	if err != nil {
		return err
	}
	return writeActivity(w, activityJSON, c)
}

func (s fediverseAPI) followers(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Fediverse.Followers(r.Context(), folio.ActorFrom(r.Context()).AtLeast(folio.LevelAdmin))
	if err != nil {
		return err
	}
	return writeActivity(w, activityJSON, c)
}

func (s fediverseAPI) article(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Fediverse.PublishedArticle(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeActivity(w, activityJSON, a)
}

func (s fediverseAPI) note(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Fediverse.PublishedNote(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeActivity(w, activityJSON, n)
}

func (s fediverseAPI) inbox(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInboxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return folio.Errorf(folio.ETOOLARGE, "An activity is at most %d bytes.", maxInboxBody)
	}
	if err != nil {
		return folio.BadRequest("body", "could not be read")
	}
	err = s.Fediverse.Inbox(r.Context(), r, body)
	if errors.Is(err, fediverse.ErrSignature) {
		s.log(r).Info("fediverse inbox refused", "reason", err.Error())
		return folio.Errorf(folio.EUNAUTHORIZED, "The request needs a valid HTTP Signature: %s.", err.Error())
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (s fediverseAPI) removeFollower(w http.ResponseWriter, r *http.Request) error {
	actor := r.URL.Query().Get("actor")
	if actor == "" {
		return folio.BadRequest("actor", "is required")
	}
	ok, err := s.Fediverse.Store.RemoveFollower(r.Context(), actor)
	if err != nil {
		return err
	}
	if !ok {
		return folio.Errorf(folio.ENOTFOUND, "%s does not follow the site.", actor)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// wantsActivity reports whether r asks for an ActivityStreams document rather than the API's JSON:
// its Accept lists application/activity+json, or application/ld+json with the ActivityStreams
// profile, at a quality no lower than application/json's (what Mastodon and its kin send).
func wantsActivity(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if !strings.Contains(strings.ToLower(accept), "json") {
		return false
	}
	activity, plain := -1.0, -1.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch {
		case mt == activityJSON, mt == "application/ld+json" && strings.Contains(params["profile"], "activitystreams"):
			activity = max(activity, q)
		case mt == "application/json":
			plain = max(plain, q)
		}
	}
	return activity > 0 && activity >= plain
}

// writeArticle answers a request for a post's URL that asks for ActivityStreams with the post's
// Article (a published post's only: drafts have none, whoever asks).
func (s *Server) writeArticle(w http.ResponseWriter, r *http.Request, p *folio.Post) error {
	if p.Status != folio.PostPublished {
		return folio.Errorf(folio.ENOTFOUND, "No published post %q.", p.Slug)
	}
	return writeActivity(w, activityJSON, s.Fediverse.Article(p))
}
