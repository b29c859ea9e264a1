package folio

import (
	"encoding/json"
	"testing"
)

func TestValidPhone(t *testing.T) {
	for s, want := range map[string]bool{"+1 (555) 010-0199": true, "+44 20 7946 0958": true, "030/1234567": true,
		"12345": false, "call me": false, "+1 555 010 0199 123456789": false, "": false, "++15550100": false} {
		if got := ValidPhone(s); got != want {
			t.Errorf("ValidPhone(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPlaceLocation(t *testing.T) {
	l := Place{Kind: PlaceInPerson, Value: "1 Main St & Co"}.Location("")
	if l.Label != "In person: 1 Main St & Co" || l.MapURL != "https://www.openstreetmap.org/search?query=1+Main+St+%26+Co" || l.JoinURL != "" || l.Video() {
		t.Errorf("in person %+v", l)
	}
	if l := (Place{Kind: PlaceLink, Value: "https://zoom.us/j/1"}).Location(""); l.JoinURL != "https://zoom.us/j/1" || l.Label != "Video call (zoom.us)" || !l.Video() {
		t.Errorf("link %+v", l)
	}
}

// FuzzCheckAnswers feeds arbitrary answers to a set of questions: never a panic, and an
// accepted answer set only holds known questions with values of their kind.
func FuzzCheckAnswers(f *testing.F) {
	qs := []Question{{ID: "c", Label: "C", Kind: QuestionChoice, Options: []string{"a", "b"}, Required: true},
		{ID: "x", Label: "X", Kind: QuestionCheckbox}, {ID: "p", Label: "P", Kind: QuestionPhone}, {ID: "t", Label: "T", Kind: QuestionTextarea}}
	f.Add(`{"c":"a","x":true,"p":"+1 555 0100 99","t":"hi"}`)
	f.Add(`{"c":1}`)
	f.Add(`{"c":"a","zz":null}`)
	f.Fuzz(func(t *testing.T, body string) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &raw) != nil {
			return
		}
		out, err := CheckAnswers(qs, raw)
		if err != nil {
			if fe, ok := err.(*Error); !ok || !fe.RuleBroken || len(fe.Details) == 0 {
				t.Fatalf("error %v is not a 422 with details", err)
			}
			return
		}
		for _, a := range out {
			switch a.Kind {
			case QuestionCheckbox:
				if _, ok := a.Value.(bool); !ok {
					t.Fatalf("checkbox value %v", a.Value)
				}
			case QuestionChoice:
				if a.Value != "a" && a.Value != "b" {
					t.Fatalf("choice value %v", a.Value)
				}
			case QuestionPhone:
				if !ValidPhone(a.Value.(string)) {
					t.Fatalf("phone value %v", a.Value)
				}
			}
		}
	})
}
