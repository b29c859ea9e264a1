package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/calendar/local"
)

// Documentation types of the booking routes (the handlers write the folio and bookings types,
// whose JSON has exactly these shapes; the OpenAPI test checks real answers against them).
type (
	bookingSlotDoc struct {
		Start    string `json:"start" doc:"ISO 8601 start at the visitor's UTC offset"`
		End      string `json:"end" doc:"ISO 8601 end at the visitor's UTC offset"`
		Duration int    `json:"duration" doc:"minutes"`
	}
	availableSlotsDoc struct {
		Slots []bookingSlotDoc `json:"slots" doc:"free slots, earliest first"`
	}
	conflictRequestDoc struct {
		StartISO        string `json:"startISO" doc:"ISO 8601 start with offset"`
		DurationMinutes int    `json:"durationMinutes" doc:"1-1440"`
		TimeZone        string `json:"timeZone,omitempty" doc:"IANA zone; optional, must be known when given"`
	}
	conflictAnswer struct {
		HasConflict bool `json:"hasConflict"`
	}
	bookRequestDoc struct {
		StartISO        string                `json:"startISO" doc:"ISO 8601 start with offset; must be a slot GET /api/schedule/available offers"`
		DurationMinutes int                   `json:"durationMinutes,omitempty" doc:"one of BOOKING_DURATION_OPTIONS or a type's duration; required without type"`
		TimeZone        string                `json:"timeZone" doc:"the visitor's IANA zone"`
		Type            string                `json:"type,omitempty" doc:"meeting type slug; durationMinutes may then be omitted"`
		AttendeeEmail   string                `json:"attendeeEmail"`
		AttendeeName    string                `json:"attendeeName" doc:"at most 200 characters, one line"`
		Summary         string                `json:"summary,omitempty" doc:"event title; default \"Meeting with <attendeeName>\""`
		Description     string                `json:"description,omitempty" doc:"at most 5000 characters"`
		Location        *folio.LocationChoice `json:"location,omitempty" doc:"the place, one of the type's locations; may be omitted when the type offers exactly one (docs/api.md, Meeting places)"`
		Answers         map[string]any        `json:"answers,omitempty" doc:"answers by question id: a string, or true/false for a checkbox; 422 names answers.<id>"`
	}
)

// bookingAPI serves the booking routes: slots, booking, the visitor's manage link, the owner's
// list, meeting types and availability overrides (booking_manage.go). Every row needs the booking
// service (needBooking).
type bookingAPI struct{ *Server }

func (s bookingAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/schedule/available", Handle: s.scheduleAvailable, Needs: needBooking,
			Tag: "Booking", Summary: "Free meeting slots on a date, in the visitor's time zone",
			Query: []param{
				{Name: "date", Type: "string", Required: true, Doc: "YYYY-MM-DD, a day in the visitor's time zone"},
				{Name: "duration", Type: "integer", Doc: "minutes, one of BOOKING_DURATION_OPTIONS or a meeting type's duration (default the first option)"},
				{Name: "type", Type: "string", Doc: "meeting type slug (GET /api/schedule/types); its duration, buffer, maxPerDay apply"},
				{Name: "timezone", Type: "string", Doc: "the visitor's IANA zone (default the owner's BOOKING_TIMEZONE)"}},
			Status: http.StatusOK, Resp: availableSlotsDoc{}, Errors: []int{422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/check-conflict", Handle: s.scheduleCheckConflict, Needs: needBooking, Audit: "-",
			Tag: "Booking", Summary: "Whether a time overlaps busy time (the provider's or another booking's, buffers included)",
			Body: conflictRequestDoc{}, Status: http.StatusOK, Resp: conflictAnswer{}, Errors: []int{413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/book", Handle: s.scheduleBook, Needs: needBooking, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Book a meeting (atomic across instances; Idempotency-Key header replays the first answer)",
			Body: bookRequestDoc{}, Status: http.StatusOK, Resp: booking.BookResponse{}, Errors: []int{409, 413, 422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/bookings", Handle: s.scheduleBookings, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Bookings (confirmed and cancelled), soonest first",
			Query: []param{pageParam, limitParam,
				{Name: "status", Type: "string", Doc: "confirmed or cancelled (default both)"},
				{Name: "from", Type: "string", Doc: "RFC 3339 time: bookings ending at or after it"},
				{Name: "to", Type: "string", Doc: "RFC 3339 time: bookings starting before it"}},
			Status: http.StatusOK, Resp: bookingList{}, Errors: []int{503}},
		{Method: "GET", Pattern: "/api/schedule/events/{file}", Handle: s.scheduleEventICS, Needs: needBooking,
			Tag: "Booking", Summary: "A booking's .ics (the local provider's event link: {file} is <token>.ics)",
			Status: http.StatusOK, RespType: "text/calendar", Errors: []int{404, 503}},
		// The manage link, the owner's cancel, meeting types and overrides (booking_manage.go).
		{Method: "GET", Pattern: "/api/schedule/bookings/{token}", Handle: s.manageGet, Needs: needBooking, Limit: limitHelperIP,
			Tag: "Booking", Summary: "The booking of a manage link (public: the token is the credential)",
			Status: http.StatusOK, Resp: folio.BookingStatus{}, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/schedule/bookings/{token}/invite.ics", Handle: s.manageICS, Needs: needBooking, Limit: limitHelperIP,
			Tag: "Booking", Summary: "The booking of a manage link as the visitor's .ics (the invitation's UID; STATUS:CANCELLED once cancelled): /book's \"Add to calendar\", whatever the provider",
			Status: http.StatusOK, RespType: "text/calendar", Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/{token}/cancel", Handle: s.manageCancel, Needs: needBooking, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Cancel the booking of a manage link (repeating it gives the same answer; after the start 409)",
			Body: folio.CancelInput{}, Status: http.StatusOK, Resp: cancelAnswer{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/{token}/reschedule", Handle: s.manageReschedule, Needs: needBooking, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Move the booking of a manage link to another offered slot (the same provider event moves; cancelled or started → 409)",
			Body: folio.RescheduleInput{}, Status: http.StatusOK, Resp: folio.BookingStatus{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/bookings/id/{id}/cancel", Handle: s.adminCancelBooking, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Cancel a booking as the owner (the same effects as the visitor's cancel)",
			Body: folio.CancelInput{}, Status: http.StatusOK, Resp: cancelAnswer{}, Errors: []int{404, 409, 413, 422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/days", Handle: s.scheduleDays, Needs: needBooking,
			Tag: "Booking", Summary: "How many free slots each date of a range has (the /book month view), in the visitor's zone",
			Query: []param{{Name: "from", Type: "string", Required: true, Doc: "YYYY-MM-DD"},
				{Name: "to", Type: "string", Required: true, Doc: "YYYY-MM-DD, at most 61 days after from"},
				{Name: "type", Type: "string", Doc: "meeting type slug"},
				{Name: "duration", Type: "integer", Doc: "minutes, when no type is given"},
				{Name: "timezone", Type: "string", Doc: "the visitor's IANA zone (default the owner's)"}},
			Status: http.StatusOK, Resp: dayList{}, Errors: []int{422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/types", Handle: s.listMeetingTypes, Needs: needBooking,
			Tag: "Booking", Summary: "Meeting types offered on /book (without any defined: one per BOOKING_DURATION_OPTIONS entry, slug <n>min)",
			Status: http.StatusOK, Resp: meetingTypeList{}, Errors: []int{503}},
		{Method: "POST", Pattern: "/api/schedule/types", Handle: s.createMeetingType, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Define a meeting type (the first one defined replaces the defaults)",
			Body: folio.MeetingTypeInput{}, Status: http.StatusCreated, Resp: folio.MeetingType{}, Errors: []int{409, 413, 422, 503}},
		{Method: "PUT", Pattern: "/api/schedule/types/{slug}", Handle: s.updateMeetingType, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Replace a meeting type's fields (the slug stays)",
			Body: folio.MeetingTypeInput{}, Status: http.StatusOK, Resp: folio.MeetingType{}, Errors: []int{404, 413, 422, 503}},
		{Method: "DELETE", Pattern: "/api/schedule/types/{slug}", Handle: s.deleteMeetingType, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Delete a meeting type (its bookings stay)", Status: http.StatusNoContent, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/schedule/overrides", Handle: s.listOverrides, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Availability overrides (days off, special hours) of a date range",
			Query: []param{{Name: "from", Type: "string", Doc: "YYYY-MM-DD (default today in the owner's zone)"},
				{Name: "to", Type: "string", Doc: "YYYY-MM-DD (default from + 365 days)"}},
			Status: http.StatusOK, Resp: overrideList{}, Errors: []int{503}},
		{Method: "PUT", Pattern: "/api/schedule/overrides/{date}", Handle: s.putOverride, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Close a date ({closed:true}) or give it its own hours ({hours:[{start,end}]}) in the owner's zone",
			Body: folio.OverrideInput{}, Status: http.StatusOK, Resp: folio.AvailabilityOverride{}, Errors: []int{413, 422, 503}},
		{Method: "DELETE", Pattern: "/api/schedule/overrides/{date}", Handle: s.deleteOverride, Needs: needBooking, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Remove a date's override (business hours apply again)", Status: http.StatusNoContent, Errors: []int{404, 503}},
	}
}

func (s bookingAPI) scheduleAvailable(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	duration := 0
	if v := strings.TrimSpace(q.Get("duration")); v != "" {
		var err error
		if duration, err = strconv.Atoi(v); err != nil || duration <= 0 {
			return folio.BadRequest("duration", "must be a whole number of minutes")
		}
	}
	slots, err := s.Bookings.AvailableOfType(r.Context(), q.Get("date"), strings.TrimSpace(q.Get("type")), duration, strings.TrimSpace(q.Get("timezone")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Slots []folio.Slot `json:"slots"`
	}{slots})
}

func (s bookingAPI) scheduleCheckConflict(w http.ResponseWriter, r *http.Request) error {
	var in folio.ConflictRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	conflict, err := s.Bookings.CheckConflict(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, conflictAnswer{HasConflict: conflict})
}

func (s bookingAPI) scheduleBook(w http.ResponseWriter, r *http.Request) error {
	var in folio.BookingRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	a, err := s.Bookings.Book(r.Context(), in, r.Header.Get("Idempotency-Key"))
	if !a.Replayed {
		s.recordBookingOutcome(r, err)
	}
	s.refundHelperOnConflict(r, err)
	if err != nil {
		return err
	}
	if !a.Replayed {
		s.recordConversion(r, folio.ConversionBooking, a.BookingID)
	}
	h := w.Header()
	if a.Replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(a.Body)+1))
	w.WriteHeader(a.Status)
	if _, err := w.Write(a.Body); err != nil {
		return err
	}
	_, err = w.Write([]byte{'\n'})
	return err
}

func (s bookingAPI) scheduleEventICS(w http.ResponseWriter, r *http.Request) error {
	token, ok := local.TokenFromPath(r.PathValue("file"))
	if !ok {
		return folio.Errorf(folio.ENOTFOUND, "No such event.")
	}
	ics, err := s.Bookings.EventICS(r.Context(), token)
	if folio.IsNotFound(err) {
		return folio.Errorf(folio.ENOTFOUND, "No such event.") // never echo the token
	}
	if err != nil {
		return err
	}
	return writeICS(w, ics)
}

// writeICS answers a booking's .ics: shown inline (a calendar app imports it), never cached by
// a shared cache nor indexed, since its address is the credential.
func writeICS(w http.ResponseWriter, ics []byte) error {
	h := w.Header()
	h.Set("Content-Type", "text/calendar; charset=utf-8")
	h.Set("Content-Disposition", `inline; filename="meeting.ics"`)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Content-Length", strconv.Itoa(len(ics)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(ics)
	return err
}

// BookingOutcomeEvent is the analytics event the book route records for each answer it gives,
// with props.result one of completed, conflict, validation, api_failure. It is not a funnel
// step: the funnel's steps and error groups stay client-reported (docs/api.md, "Funnel"), and a server event
// under the same names would count each visitor twice.
const BookingOutcomeEvent = "booking_server_outcome"

func (s bookingAPI) recordBookingOutcome(r *http.Request, err error) {
	if s.Analytics == nil {
		return
	}
	result := "completed"
	if err != nil {
		switch folio.ErrorCode(err) {
		case folio.ECONFLICT:
			result = "conflict"
		case folio.EINVALID, folio.ETOOLARGE:
			result = "validation"
		default:
			result = "api_failure"
		}
	}
	in := &folio.CollectInput{Type: folio.CollectEvent, Path: "/api/schedule/book", Name: BookingOutcomeEvent,
		Props: map[string]any{"result": result}}
	if _, cerr := s.Analytics.Collect(r.Context(), in, s.clientIP(r), r.UserAgent()); cerr != nil {
		s.log(r).Warn("booking outcome not recorded in analytics", "error", cerr.Error())
	}
}

type bookingList struct {
	Bookings   []folio.BookingListItem `json:"bookings"`
	Pagination pagination              `json:"pagination"`
}

func (s bookingAPI) scheduleBookings(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	items, total, err := s.Bookings.List(r.Context(), q.Get("status"), q.Get("from"), q.Get("to"), page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, bookingList{Bookings: items, Pagination: newPagination(page, limit, total)})
}
