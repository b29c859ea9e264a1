package folio

import (
	"encoding/json"
	"testing"
)

func TestOverrideInputValidate(t *testing.T) {
	cases := []struct {
		in     OverrideInput
		status int
	}{
		{OverrideInput{Closed: true}, 0},
		{OverrideInput{Hours: []HoursRange{{"09:00", "12:00"}, {"13:00", "24:00"}}}, 0},
		{OverrideInput{}, 400},
		{OverrideInput{Closed: true, Hours: []HoursRange{{"09:00", "10:00"}}}, 422},
		{OverrideInput{Hours: []HoursRange{{"9:00", "10:00"}}}, 422},
		{OverrideInput{Hours: []HoursRange{{"10:00", "10:00"}}}, 422},
		{OverrideInput{Hours: []HoursRange{{"24:30", "25:00"}}}, 422},
		{OverrideInput{Hours: []HoursRange{{"09:00", "11:00"}, {"10:59", "12:00"}}}, 422},
		{OverrideInput{Hours: []HoursRange{{"+9:00", "10:00"}}}, 422},
	}
	for _, c := range cases {
		err := c.in.Validate()
		got := 0
		if err != nil {
			got = statusOf(err.(*Error))
		}
		if got != c.status {
			t.Errorf("%+v: status %d (%v), want %d", c.in, got, err, c.status)
		}
	}
}

// FuzzOverrideInput: any JSON body either fails validation or yields ranges that are inside the
// day, non-empty and pairwise disjoint.
func FuzzOverrideInput(f *testing.F) {
	f.Add(`{"closed":true}`)
	f.Add(`{"hours":[{"start":"09:00","end":"12:30"},{"start":"13:00","end":"24:00"}]}`)
	f.Add(`{"hours":[{"start":"-1:00","end":"99:99"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var in OverrideInput
		if json.Unmarshal([]byte(body), &in) != nil || in.Validate() != nil {
			return
		}
		var spans [][2]int
		for _, h := range in.Hours {
			a, b, err := h.Minutes()
			if err != nil || a < 0 || b > 24*60 || a >= b {
				t.Fatalf("valid input %q has range %v–%v (%v)", body, a, b, err)
			}
			for _, s := range spans {
				if a < s[1] && s[0] < b {
					t.Fatalf("valid input %q has overlapping ranges", body)
				}
			}
			spans = append(spans, [2]int{a, b})
		}
	})
}
