package httpapi

import (
	"encoding/csv"
	"errors"
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/newsletter"
)

// maxImportBody bounds a CSV import's body.
const maxImportBody = 16 << 20

// The subscriber routes (docs/api.md, "Subscribers"; CONTRACT §12). The {token} segments are
// bearer secrets, kept out of logs by their name (logPath).

type (
	subscriberStatus struct {
		Status string `json:"status" doc:"pending (subscribe: always, whatever the list holds), active (confirm) or the subscriber's status after unsubscribe (unsubscribed, or bounced or complained as it was)"`
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
		// RFC 8058 one-click: mail providers POST List-Unsubscribe=One-Click to the link of the
		// List-Unsubscribe header, without cookies; the page at GET /unsubscribe/<token> posts the same.
		{Method: "POST", Pattern: "/unsubscribe/{token}", Handle: s.unsubscribe, Needs: needSubscribers, Limit: limitHelperIP, Audit: "subscriber.unsubscribe",
			Tag: "Subscribers", Summary: "Unsubscribe with the token of a mail's unsubscribe link (form body List-Unsubscribe=One-Click, or none; no session needed; repeating it gives the same answer)",
			BodyType: "application/x-www-form-urlencoded", Status: http.StatusOK, Resp: subscriberStatus{}, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/subscribers", Handle: s.list, Needs: needSubscribers, Level: folio.LevelAdmin,
			Tag: "Subscribers", Summary: "Subscribers, newest first",
			Query: []param{{Name: "status", Type: "string", Doc: "pending, active, unsubscribed, bounced or complained"},
				{Name: "q", Type: "string", Doc: "part of the address or name (case-insensitive)"}, pageParam, limitParam},
			Status: http.StatusOK, Resp: subscriberList{}, Errors: []int{503}},
		{Method: "POST", Pattern: "/api/subscribers/import", Handle: s.importCSV, Needs: needSubscribers, Level: folio.LevelAdmin, Audit: "subscriber.import",
			Tag: "Subscribers", Summary: "Add subscribers from CSV (header row: email, and optionally name, source, consent); consent yes/true/1 makes a row active, else it stays pending and is never mailed; addresses already listed are left as they are",
			BodyType: "text/csv", Status: http.StatusOK, Resp: newsletter.ImportResult{}, Errors: []int{413, 503}},
		{Method: "GET", Pattern: "/api/subscribers/export", Handle: s.export, Needs: needSubscribers, Level: folio.LevelAdmin,
			Tag: "Subscribers", Summary: "Every subscriber as CSV (email, name, status, source, createdAt, confirmedAt), newest first; cells a spreadsheet would run as a formula are prefixed with '",
			Status: http.StatusOK, RespType: "text/csv", Errors: []int{503}},
		{Method: "DELETE", Pattern: "/api/subscribers/{id}", Handle: s.erase, Needs: needSubscribers, Level: folio.LevelAdmin, Audit: "subscriber.erase",
			Tag: "Subscribers", Summary: "Erase a subscriber: the row and its address are deleted",
			Status: http.StatusNoContent, Errors: []int{404, 503}},
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
	s.recordConversion(r, folio.ConversionSubscription, "")
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

func (s subscriberAPI) export(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="subscribers.csv"`)
	h.Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	cw.Write([]string{"email", "name", "status", "source", "createdAt", "confirmedAt"})
	err := s.Subscribers.Export(r.Context(), func(sub folio.Subscriber) error {
		confirmed := ""
		if sub.ConfirmedAt != nil {
			confirmed = sub.ConfirmedAt.UTC().Format(time.RFC3339)
		}
		// Names, addresses and sources come from visitors.
		return cw.Write([]string{csvSafe(sub.Email), csvSafe(sub.Name), sub.Status, csvSafe(sub.Source),
			sub.CreatedAt.UTC().Format(time.RFC3339), confirmed})
	})
	if err != nil {
		return err // before the first flush (4 KiB) the error envelope is still sent
	}
	cw.Flush()
	return cw.Error()
}

func (s subscriberAPI) erase(w http.ResponseWriter, r *http.Request) error {
	if err := s.Subscribers.Erase(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s subscriberAPI) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	sub, err := s.Subscribers.Unsubscribe(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, subscriberStatus{Status: sub.Status})
}

func (s subscriberAPI) importCSV(w http.ResponseWriter, r *http.Request) error {
	res, err := s.Subscribers.Import(r.Context(), http.MaxBytesReader(w, r.Body, maxImportBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return folio.Errorf(folio.ETOOLARGE, "The CSV is larger than %d bytes.", mbe.Limit)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}
