package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
)

// Booking lifecycle routes (contract §7): the visitor's manage link, cancel and reschedule, the
// owner's cancel, meeting types and availability overrides.

type (
	cancelAnswer struct {
		Status string `json:"status" doc:"cancelled"`
	}
	meetingTypeList struct {
		Types []folio.MeetingType `json:"types"`
	}
	dayList struct {
		Days []booking.DayAvailability `json:"days"`
	}
	overrideList struct {
		Overrides []folio.AvailabilityOverride `json:"overrides"`
	}
)

func (s *Server) bookingLifecycleRoutes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/schedule/bookings/{token}", Handle: s.manageGet, Limit: limitHelperIP,
			Tag: "Booking", Summary: "The booking of a manage link (public: the token is the credential)",
			Status: http.StatusOK, Resp: folio.BookingStatus{}, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/{token}/cancel", Handle: s.manageCancel, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Cancel the booking of a manage link (repeating it gives the same answer; after the start 409)",
			Body: folio.CancelInput{}, Status: http.StatusOK, Resp: cancelAnswer{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/{token}/reschedule", Handle: s.manageReschedule, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Move the booking of a manage link to another offered slot (the same provider event moves; cancelled or started → 409)",
			Body: folio.RescheduleInput{}, Status: http.StatusOK, Resp: folio.BookingStatus{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/id/{id}/cancel", Handle: s.adminCancelBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Cancel a booking as the owner (the same effects as the visitor's cancel)",
			Body: folio.CancelInput{}, Status: http.StatusOK, Resp: cancelAnswer{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/days", Handle: s.scheduleDays,
			Tag: "Booking", Summary: "How many free slots each date of a range has (the /book month view), in the visitor's zone",
			Query: []param{{Name: "from", Type: "string", Required: true, Doc: "YYYY-MM-DD"},
				{Name: "to", Type: "string", Required: true, Doc: "YYYY-MM-DD, at most 61 days after from"},
				{Name: "type", Type: "string", Doc: "meeting type slug"},
				{Name: "duration", Type: "integer", Doc: "minutes, when no type is given"},
				{Name: "timezone", Type: "string", Doc: "the visitor's IANA zone (default the owner's)"}},
			Status: http.StatusOK, Resp: dayList{}, Errors: []int{422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/types", Handle: s.listMeetingTypes,
			Tag: "Booking", Summary: "Meeting types offered on /book (without any defined: one per BOOKING_DURATION_OPTIONS entry, slug <n>min)",
			Status: http.StatusOK, Resp: meetingTypeList{}, Errors: []int{503}},
		{Method: "POST", Pattern: "/api/schedule/types", Handle: s.createMeetingType, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Define a meeting type (the first one defined replaces the defaults)",
			Body: folio.MeetingTypeInput{}, Status: http.StatusCreated, Resp: folio.MeetingType{}, Errors: []int{409, 413, 422, 503}},
		{Method: "PUT", Pattern: "/api/schedule/types/{slug}", Handle: s.updateMeetingType, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Replace a meeting type's fields (the slug stays)",
			Body: folio.MeetingTypeInput{}, Status: http.StatusOK, Resp: folio.MeetingType{}, Errors: []int{404, 413, 422, 503}},
		{Method: "DELETE", Pattern: "/api/schedule/types/{slug}", Handle: s.deleteMeetingType, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Delete a meeting type (its bookings stay)", Status: http.StatusNoContent, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/schedule/overrides", Handle: s.listOverrides, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Availability overrides (days off, special hours) of a date range",
			Query: []param{{Name: "from", Type: "string", Doc: "YYYY-MM-DD (default today in the owner's zone)"},
				{Name: "to", Type: "string", Doc: "YYYY-MM-DD (default from + 365 days)"}},
			Status: http.StatusOK, Resp: overrideList{}, Errors: []int{503}},
		{Method: "PUT", Pattern: "/api/schedule/overrides/{date}", Handle: s.putOverride, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Close a date ({closed:true}) or give it its own hours ({hours:[{start,end}]}) in the owner's zone",
			Body: folio.OverrideInput{}, Status: http.StatusOK, Resp: folio.AvailabilityOverride{}, Errors: []int{413, 422, 503}},
		{Method: "DELETE", Pattern: "/api/schedule/overrides/{date}", Handle: s.deleteOverride, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Remove a date's override (business hours apply again)", Status: http.StatusNoContent, Errors: []int{404, 503}},
	}
}

func (s *Server) manageGet(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	st, err := svc.Get(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, st)
}

// decodeOptionalJSON decodes a JSON body when there is one (cancel's body is optional).
func decodeOptionalJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return nil
	}
	return decodeJSON(w, r, v)
}

func (s *Server) manageCancel(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.CancelInput
	if err := decodeOptionalJSON(w, r, &in); err != nil {
		return err
	}
	st, err := svc.CancelByToken(r.Context(), r.PathValue("token"), in)
	s.recordLifecycle(r, "cancel", err)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cancelAnswer{Status: st.Status})
}

func (s *Server) manageReschedule(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.RescheduleInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	st, err := svc.Reschedule(r.Context(), r.PathValue("token"), in)
	s.recordLifecycle(r, "reschedule", err)
	s.refundHelperOnConflict(r, err)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (s *Server) adminCancelBooking(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.CancelInput
	if err := decodeOptionalJSON(w, r, &in); err != nil {
		return err
	}
	st, err := svc.CancelByID(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cancelAnswer{Status: st.Status})
}

// recordLifecycle records the outcome of a cancel or reschedule as the server-side analytics
// event, like the book route (props.action names the step).
func (s *Server) recordLifecycle(r *http.Request, action string, err error) {
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

func (s *Server) scheduleDays(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	duration := 0
	if v := strings.TrimSpace(q.Get("duration")); v != "" {
		if duration, err = strconv.Atoi(v); err != nil || duration <= 0 {
			return folio.BadRequest("duration", "must be a whole number of minutes")
		}
	}
	if q.Get("from") == "" || q.Get("to") == "" {
		return folio.BadRequest("from", "from and to are required (YYYY-MM-DD)")
	}
	days, err := svc.AvailableDays(r.Context(), q.Get("from"), q.Get("to"), strings.TrimSpace(q.Get("type")), duration, strings.TrimSpace(q.Get("timezone")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, dayList{Days: days})
}

func (s *Server) listMeetingTypes(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	ts, err := svc.Types(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, meetingTypeList{Types: ts})
}

func (s *Server) createMeetingType(w http.ResponseWriter, r *http.Request) error {
	return s.saveMeetingType(w, r, "")
}

func (s *Server) updateMeetingType(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	if !folio.ValidSlug(slug) {
		return folio.Errorf(folio.ENOTFOUND, "No such meeting type.")
	}
	return s.saveMeetingType(w, r, slug)
}

func (s *Server) saveMeetingType(w http.ResponseWriter, r *http.Request, slug string) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.MeetingTypeInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	t, err := svc.SaveType(r.Context(), slug, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if slug == "" {
		status = http.StatusCreated
	}
	return writeJSON(w, status, t)
}

func (s *Server) deleteMeetingType(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	if err := svc.DeleteType(r.Context(), r.PathValue("slug")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listOverrides(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	os, err := svc.Overrides(r.Context(), strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, overrideList{Overrides: os})
}

func (s *Server) putOverride(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.OverrideInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	o, err := svc.PutOverride(r.Context(), r.PathValue("date"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, o)
}

func (s *Server) deleteOverride(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	if err := svc.DeleteOverride(r.Context(), r.PathValue("date")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
