package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
)

// The booking routes of the visitor's manage link (cancel, reschedule), the owner's cancel,
// meeting types and availability overrides (docs/api.md, "Booking lifecycle").

type (
	cancelAnswer struct {
		Status string `json:"status" doc:"cancelled"`
	}
	meetingTypeList struct {
		Types []folio.MeetingType `json:"types"`
		Host  folio.BookingHost   `json:"host" doc:"who the meetings are with (the /book page's host card)"`
	}
	dayList struct {
		Days []booking.DayAvailability `json:"days"`
	}
	overrideList struct {
		Overrides []folio.AvailabilityOverride `json:"overrides"`
	}
)

func (s bookingAPI) manageGet(w http.ResponseWriter, r *http.Request) error {
	st, err := s.Bookings.Get(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, st)
}

func (s bookingAPI) manageICS(w http.ResponseWriter, r *http.Request) error {
	ics, err := s.Bookings.ICS(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	return writeICS(w, ics)
}

// decodeOptionalJSON decodes a JSON body when there is one (cancel's body is optional).
func decodeOptionalJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return nil
	}
	return decodeJSON(w, r, v)
}

func (s bookingAPI) manageCancel(w http.ResponseWriter, r *http.Request) error {
	var in folio.CancelInput
	if err := decodeOptionalJSON(w, r, &in); err != nil {
		return err
	}
	st, err := s.Bookings.CancelByToken(r.Context(), r.PathValue("token"), in)
	s.recordLifecycle(r, "cancel", err)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cancelAnswer{Status: st.Status})
}

func (s bookingAPI) manageReschedule(w http.ResponseWriter, r *http.Request) error {
	var in folio.RescheduleInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	st, err := s.Bookings.Reschedule(r.Context(), r.PathValue("token"), in)
	s.recordLifecycle(r, "reschedule", err)
	s.refundHelperOnConflict(r, err)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (s bookingAPI) adminCancelBooking(w http.ResponseWriter, r *http.Request) error {
	var in folio.CancelInput
	if err := decodeOptionalJSON(w, r, &in); err != nil {
		return err
	}
	st, err := s.Bookings.CancelByID(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cancelAnswer{Status: st.Status})
}

// recordLifecycle records the outcome of a cancel or reschedule as the server-side analytics
// event, like the book route (props.action names the step).
func (s bookingAPI) recordLifecycle(r *http.Request, action string, err error) {
	if s.Analytics == nil {
		return
	}
	result := "completed"
	if err != nil {
		switch folio.ErrorCode(err) {
		case folio.ECONFLICT:
			result = "conflict"
		case folio.EINVALID, folio.ETOOLARGE, folio.ENOTFOUND:
			result = "validation"
		default:
			result = "api_failure"
		}
	}
	in := &folio.CollectInput{Type: folio.CollectEvent, Path: "/api/schedule/bookings", Name: BookingOutcomeEvent,
		Props: map[string]any{"result": result, "action": action}}
	if _, cerr := s.Analytics.Collect(r.Context(), in, s.clientIP(r), r.UserAgent()); cerr != nil {
		s.log(r).Warn("booking outcome not recorded in analytics", "error", cerr.Error())
	}
}

func (s bookingAPI) scheduleDays(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	duration := 0
	if v := strings.TrimSpace(q.Get("duration")); v != "" {
		var err error
		if duration, err = strconv.Atoi(v); err != nil || duration <= 0 {
			return folio.BadRequest("duration", "must be a whole number of minutes")
		}
	}
	if q.Get("from") == "" || q.Get("to") == "" {
		return folio.BadRequest("from", "from and to are required (YYYY-MM-DD)")
	}
	days, err := s.Bookings.AvailableDays(r.Context(), q.Get("from"), q.Get("to"), strings.TrimSpace(q.Get("type")), duration, strings.TrimSpace(q.Get("timezone")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, dayList{Days: days})
}

func (s bookingAPI) listMeetingTypes(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.Bookings.Types(r.Context())
	if err != nil {
		return err
	}
	var host folio.BookingHost
	if s.BookingHost != nil {
		host = s.BookingHost(r.Context())
	}
	return writeJSON(w, http.StatusOK, meetingTypeList{Types: ts, Host: host})
}

func (s bookingAPI) createMeetingType(w http.ResponseWriter, r *http.Request) error {
	return s.saveMeetingType(w, r, "")
}

func (s bookingAPI) updateMeetingType(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	if !folio.ValidSlug(slug) {
		return folio.Errorf(folio.ENOTFOUND, "No such meeting type.")
	}
	return s.saveMeetingType(w, r, slug)
}

func (s bookingAPI) saveMeetingType(w http.ResponseWriter, r *http.Request, slug string) error {
	var in folio.MeetingTypeInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	t, err := s.Bookings.SaveType(r.Context(), slug, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if slug == "" {
		status = http.StatusCreated
	}
	return writeJSON(w, status, t)
}

func (s bookingAPI) deleteMeetingType(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bookings.DeleteType(r.Context(), r.PathValue("slug")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s bookingAPI) listOverrides(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	os, err := s.Bookings.Overrides(r.Context(), strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, overrideList{Overrides: os})
}

func (s bookingAPI) putOverride(w http.ResponseWriter, r *http.Request) error {
	var in folio.OverrideInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	o, err := s.Bookings.PutOverride(r.Context(), r.PathValue("date"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, o)
}

func (s bookingAPI) deleteOverride(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bookings.DeleteOverride(r.Context(), r.PathValue("date")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
