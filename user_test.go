package folio

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Ensure every way of setting a password applies the one rule: MinPasswordLen characters (counted
// as characters, not bytes), at most MaxPasswordLen bytes; and that the OpenAPI text of the
// password change states the same number.
func TestOnePasswordRule(t *testing.T) {
	checks := map[string]func(p string) error{
		"ValidatePassword": ValidatePassword,
		"UserInput": func(p string) error {
			in := UserInput{Email: "ada@example.com", Name: "Ada", Role: RoleOwner, Password: p}
			return in.Validate()
		},
		"PasswordChange": func(p string) error {
			in := PasswordChange{CurrentPassword: "old", NewPassword: p}
			return in.Validate()
		},
	}
	for name, check := range checks {
		for _, tc := range []struct {
			password string
			code     string // "" accepted, else the 400/422 kind of the refusal
		}{
			{"", "missing"},
			{"elevenchars", "rule"},
			{strings.Repeat("é", MinPasswordLen-1), "rule"}, // 22 bytes, 11 characters
			{strings.Repeat("é", MinPasswordLen), ""},
			{"twelve chars", ""},
			{strings.Repeat("x", MaxPasswordLen), ""},
			{strings.Repeat("x", MaxPasswordLen+1), "rule"},
		} {
			err := check(tc.password)
			var got string
			if fe, ok := err.(*Error); ok {
				got = map[bool]string{true: "rule", false: "missing"}[fe.RuleBroken]
			} else if err != nil {
				t.Fatalf("%s: %T %v", name, err, err)
			}
			if got != tc.code {
				t.Errorf("%s(%d characters): %q, want %q (%v)", name, len([]rune(tc.password)), got, tc.code, err)
			}
		}
	}
	f, _ := reflect.TypeOf(PasswordChange{}).FieldByName("NewPassword")
	if doc := f.Tag.Get("doc"); !strings.Contains(doc, strconv.Itoa(MinPasswordLen)) {
		t.Errorf("the OpenAPI text of newPassword (%q) does not state %d", doc, MinPasswordLen)
	}
}
