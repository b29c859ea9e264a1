package folio

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzValidationDetails: however many problems a body has, at most MaxErrorDetails are listed,
// the first ones in order, and the message counts the rest.
func FuzzValidationDetails(f *testing.F) {
	f.Add(uint16(0), uint16(0))
	f.Add(uint16(20), uint16(0))
	f.Add(uint16(20000), uint16(3))
	f.Fuzz(func(t *testing.T, invalid, missing uint16) {
		var v Validation
		for i := range int(invalid) {
			v.Invalid(fmt.Sprintf("f[%d]", i), "is listed twice")
		}
		for range int(missing) {
			v.Missing("m")
		}
		total := int(invalid) + int(missing)
		err := v.Err()
		if total == 0 {
			if err != nil {
				t.Fatal("error without problems")
			}
			return
		}
		fe := err.(*Error)
		if len(fe.Details) != min(total, MaxErrorDetails) {
			t.Fatalf("%d problems: %d details", total, len(fe.Details))
		}
		if invalid > 0 && fe.Details[0].Field != "f[0]" {
			t.Fatalf("first detail %q", fe.Details[0].Field)
		}
		more := fmt.Sprintf("%d more problems", total-MaxErrorDetails)
		if (total > MaxErrorDetails) != strings.Contains(fe.Message, more) {
			t.Fatalf("%d problems: message %q", total, fe.Message)
		}
		if (missing > 0) != (statusOf(fe) == 400) {
			t.Fatalf("status %d with %d missing", statusOf(fe), missing)
		}
		capped := (&Error{Code: EINVALID, Details: append([]FieldError{}, fe.Details...)}).CapDetails()
		if len(capped.Details) > MaxErrorDetails {
			t.Fatal("CapDetails kept too many")
		}
	})
}

// statusOf is the HTTP status httpapi answers err with when it is a VALIDATION_ERROR: 422 for a
// broken rule, 400 for missing or unparseable input; 0 for other codes.
func statusOf(e *Error) int {
	switch {
	case e.Code != EINVALID:
		return 0
	case e.RuleBroken:
		return 422
	}
	return 400
}
