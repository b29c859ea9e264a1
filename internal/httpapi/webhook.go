package httpapi

import (
	"net/http"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/netguard"
	"github.com/foliohq/folio/internal/webhook"
)

// webhookAPI manages the outgoing webhooks and their delivery logs.
type webhookAPI struct{ *Server }

func (s webhookAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/webhooks", Handle: s.createWebhook, Level: folio.LevelAdmin,
			Tag: "Webhooks", Summary: "Create an outgoing webhook; the signing secret (whsec_…) is in the response and never shown again. " +
				"Events: " + strings.Join(folio.EventTypes, ", ") + ". URLs on loopback, private or link-local addresses are refused (422) unless WEBHOOK_ALLOW_PRIVATE=true",
			Body: folio.WebhookInput{}, Status: http.StatusCreated, Resp: createdWebhook{}, Errors: []int{413, 415, 422}},
		{Method: "GET", Pattern: "/api/webhooks", Handle: s.listWebhooks, Level: folio.LevelAdmin,
			Tag: "Webhooks", Summary: "List the outgoing webhooks, oldest first (secrets are never shown again)", Status: http.StatusOK, Resp: webhookList{}},
		{Method: "DELETE", Pattern: "/api/webhooks/{id}", Handle: s.deleteWebhook, Level: folio.LevelAdmin,
			Tag: "Webhooks", Summary: "Delete a webhook with its delivery log; queued deliveries are dropped", Status: http.StatusNoContent, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/webhooks/{id}/test", Handle: s.testWebhook, Level: folio.LevelAdmin,
			Tag: "Webhooks", Summary: "Queue a webhook.test delivery to this webhook (sent within seconds and retried like any other); its outcome shows in the delivery log",
			Status: http.StatusAccepted, Resp: queuedDelivery{}, Errors: []int{404}},
		{Method: "GET", Pattern: "/api/webhooks/{id}/deliveries", Handle: s.listWebhookDeliveries, Level: folio.LevelAdmin,
			Tag: "Webhooks", Summary: "The delivery log of a webhook, newest first: status (pending, succeeded, failed), attempts, last response status and error, next attempt",
			Query: []param{pageParam, limitParam}, Status: http.StatusOK, Resp: deliveryList{}, Errors: []int{404}},
	}
}

type createdWebhook struct {
	Webhook folio.Webhook `json:"webhook"`
	Secret  string        `json:"secret"`
}

type webhookList struct {
	Webhooks []folio.Webhook `json:"webhooks"`
}

type queuedDelivery struct {
	Delivery folio.WebhookDelivery `json:"delivery"`
}

type deliveryList struct {
	Deliveries []folio.WebhookDelivery `json:"deliveries"`
	Pagination pagination              `json:"pagination"`
}

func (s webhookAPI) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var in folio.WebhookInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	u := strings.TrimSpace(*in.URL)
	if err := webhook.CheckURL(r.Context(), u, netguard.Policy{AllowPrivate: s.WebhookAllowPrivate}); err != nil {
		var v folio.Validation
		v.Invalid("url", "is refused: %s", err.Error())
		return v.Err()
	}
	h := folio.Webhook{ID: folio.NewID(), URL: u, Events: in.Events, CreatedAt: s.now().UTC().Truncate(1000)}
	if in.Description != nil {
		h.Description = strings.TrimSpace(*in.Description)
	}
	secret := webhook.NewSecret()
	if err := s.Webhooks.CreateWebhook(r.Context(), h, secret); err != nil {
		return err
	}
	w.Header().Set("Location", "/api/webhooks/"+h.ID)
	return writeJSON(w, http.StatusCreated, createdWebhook{Webhook: h, Secret: secret})
}

func (s webhookAPI) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	hooks, err := s.Webhooks.Webhooks(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, webhookList{Webhooks: hooks})
}

func (s webhookAPI) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := s.Webhooks.DeleteWebhook(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s webhookAPI) testWebhook(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	did, err := s.Webhooks.QueueTestDelivery(r.Context(), id, map[string]string{"webhookId": id,
		"message": "This is a test delivery from folio."})
	if err != nil {
		return err
	}
	d, err := s.Webhooks.OutgoingDelivery(r.Context(), did)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, queuedDelivery{Delivery: d.WebhookDelivery})
}

func (s webhookAPI) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if _, _, err := s.Webhooks.Webhook(r.Context(), id); err != nil {
		return err
	}
	ds, total, err := s.Webhooks.WebhookDeliveries(r.Context(), id, page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, deliveryList{Deliveries: ds,
		Pagination: newPagination(page, limit, total)})
}
