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
		StartISO        string `json:"startISO" doc:"ISO 8601 start with offset; must be a slot GET /api/schedule/available offers"`
		DurationMinutes int    `json:"durationMinutes,omitempty" doc:"one of BOOKING_DURATION_OPTIONS or a type's duration; required without type"`
		TimeZone        string `json:"timeZone" doc:"the visitor's IANA zone"`
		Type            string `json:"type,omitempty" doc:"meeting type slug; durationMinutes may then be omitted"`
		AttendeeEmail   string `json:"attendeeEmail"`
		AttendeeName    string `json:"attendeeName" doc:"at most 200 characters, one line"`
		Summary         string `json:"summary,omitempty" doc:"event title; default \"Meeting with <attendeeName>\""`
		Description     string `json:"description,omitempty" doc:"at most 5000 characters"`
	}
)

func (s *Server) bookingRoutes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/schedule/available", Handle: s.scheduleAvailable,
			Tag: "Booking", Summary: "Free meeting slots on a date, in the visitor's time zone",
			Query: []param{
				{Name: "date", Type: "string", Required: true, Doc: "YYYY-MM-DD, a day in the visitor's time zone"},
				{Name: "duration", Type: "integer", Doc: "minutes, one of BOOKING_DURATION_OPTIONS or a meeting type's duration (default the first option)"},
				{Name: "type", Type: "string", Doc: "meeting type slug (GET /api/schedule/types); its duration, buffer, maxPerDay apply"},
				{Name: "timezone", Type: "string", Doc: "the visitor's IANA zone (default the owner's BOOKING_TIMEZONE)"}},
			Status: http.StatusOK, Resp: availableSlotsDoc{}, Errors: []int{422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/check-conflict", Handle: s.scheduleCheckConflict, Audit: "-",
			Tag: "Booking", Summary: "Whether a time overlaps busy time (the provider's or another booking's, buffers included)",
			Body: conflictRequestDoc{}, Status: http.StatusOK, Resp: conflictAnswer{}, Errors: []int{413, 422, 502, 503}},
		{Method: "POST", Pattern: "/api/schedule/book", Handle: s.scheduleBook, Limit: limitHelperIP,
			Tag: "Booking", Summary: "Book a meeting (atomic across instances; Idempotency-Key header replays the first answer)",
			Body: bookRequestDoc{}, Status: http.StatusOK, Resp: booking.BookResponse{}, Errors: []int{409, 413, 422, 502, 503}},
		{Method: "GET", Pattern: "/api/schedule/bookings", Handle: s.scheduleBookings, Level: folio.LevelAdmin,
			Tag: "Booking", Summary: "Bookings (confirmed and cancelled), soonest first",
			Query: []param{pageParam, limitParam,
				{Name: "status", Type: "string", Doc: "confirmed or cancelled (default both)"},
				{Name: "from", Type: "string", Doc: "RFC 3339 time: bookings ending at or after it"},
				{Name: "to", Type: "string", Doc: "RFC 3339 time: bookings starting before it"}},
			Status: http.StatusOK, Resp: bookingList{}, Errors: []int{503}},
		{Method: "GET", Pattern: "/api/schedule/events/{file}", Handle: s.scheduleEventICS,
			Tag: "Booking", Summary: "A booking's .ics (the local provider's event link: {file} is <token>.ics)",
			Status: http.StatusOK, RespType: "text/calendar", Errors: []int{404, 503}},
	}
}

func (s *Server) bookingService() (*booking.Service, error) {
	if s.Bookings == nil {
		return nil, folio.Errorf(folio.EUNAVAILABLE, "Booking is not configured on this server.")
	}
	return s.Bookings, nil
}

func (s *Server) scheduleAvailable(w http.ResponseWriter, r *http.Request) error {
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
	slots, err := svc.AvailableOfType(r.Context(), q.Get("date"), strings.TrimSpace(q.Get("type")), duration, strings.TrimSpace(q.Get("timezone")))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Slots []folio.Slot `json:"slots"`
	}{slots})
}

func (s *Server) scheduleCheckConflict(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.ConflictRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	conflict, err := svc.CheckConflict(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, conflictAnswer{HasConflict: conflict})
}

func (s *Server) scheduleBook(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	var in folio.BookingRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	a, err := svc.Book(r.Context(), in, r.Header.Get("Idempotency-Key"))
	if !a.Replayed {
		s.recordBookingOutcome(r, err)
	}
	s.refundHelperOnConflict(r, err)
	if err != nil {
		return err
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

func (s *Server) scheduleEventICS(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	token, ok := local.TokenFromPath(r.PathValue("file"))
	if !ok {
		return folio.Errorf(folio.ENOTFOUND, "No such event.")
	}
	ics, err := svc.EventICS(r.Context(), token)
	if folio.IsNotFound(err) {
		return folio.Errorf(folio.ENOTFOUND, "No such event.") // never echo the token
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/calendar; charset=utf-8")
	h.Set("Content-Disposition", `inline; filename="meeting.ics"`)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Content-Length", strconv.Itoa(len(ics)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(ics)
	return err
}

// BookingOutcomeEvent is the analytics event the book route records for each answer it gives,
// with props.result one of completed, conflict, validation, api_failure. It is not a funnel
// step: the funnel's steps and error groups stay client-reported (spec §6), and a server event
// under the same names would count each visitor twice.
const BookingOutcomeEvent = "booking_server_outcome"

func (s *Server) recordBookingOutcome(r *http.Request, err error) {
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

func (s *Server) scheduleBookings(w http.ResponseWriter, r *http.Request) error {
	svc, err := s.bookingService()
	if err != nil {
		return err
	}
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	items, total, err := svc.List(r.Context(), q.Get("status"), q.Get("from"), q.Get("to"), page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, bookingList{Bookings: items, Pagination: newPagination(page, limit, total)})
}
