package httpapi

import (
	"net/http"

	"github.com/foliohq/folio"
)

// The subscriber routes (docs/api.md, "Subscribers"; CONTRACT §12). The {token} segments are
// bearer secrets, kept out of logs by their name (logPath).

type (
	subscriberStatus struct {
		Status string `json:"status" doc:"pending (subscribe: always, whatever the list holds) or active (confirm)"`
	}
	subscriberList struct {
		Subscribers []folio.Subscriber `json:"subscribers"`
		Total       int                `json:"total"`
	}
)

// subscriberAPI serves the subscribe form, the confirm link and the owner's list.
type subscriberAPI struct{ *Server }

func (s subscriberAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/subscribers", Handle: s.subscribe, Needs: needSubscribers, Limit: limitHelperIP, Audit: "subscriber.subscribe",
			Tag: "Subscribers", Summary: "Subscribe an address: a confirmation mail goes out (at most one per address per 15 minutes); the answer is the same whether the address is new, pending or already subscribed",
			Body: folio.SubscribeInput{}, Status: http.StatusAccepted, Resp: subscriberStatus{}, Errors: []int{413, 503}},
		{Method: "POST", Pattern: "/api/subscribers/confirm/{token}", Handle: s.confirm, Needs: needSubscribers, Limit: limitHelperIP, Audit: "subscriber.confirm",
			Tag: "Subscribers", Summary: "Confirm a subscription with the token of its confirmation link (single use, 7 days; unknown, used or expired → 404)",
			Status: http.StatusOK, Resp: subscriberStatus{}, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/subscribers", Handle: s.list, Needs: needSubscribers, Level: folio.LevelAdmin,
			Tag: "Subscribers", Summary: "Subscribers, newest first",
			Query: []param{{Name: "status", Type: "string", Doc: "pending, active, unsubscribed, bounced or complained"},
				{Name: "q", Type: "string", Doc: "part of the address or name (case-insensitive)"}, pageParam, limitParam},
			Status: http.StatusOK, Resp: subscriberList{}, Errors: []int{503}},
	}
}

func (s subscriberAPI) subscribe(w http.ResponseWriter, r *http.Request) error {
	var in folio.SubscribeInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := s.Subscribers.Subscribe(r.Context(), in); err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, subscriberStatus{Status: folio.SubscriberPending})
}

func (s subscriberAPI) confirm(w http.ResponseWriter, r *http.Request) error {
	sub, err := s.Subscribers.Confirm(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, subscriberStatus{Status: sub.Status})
}

func (s subscriberAPI) list(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	subs, total, err := s.Subscribers.List(r.Context(), folio.SubscriberFilter{Status: q.Get("status"), Q: q.Get("q")}, page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, subscriberList{Subscribers: subs, Total: total})
}
