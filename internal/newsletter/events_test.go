package newsletter

import (
	"strconv"
	"testing"
	"time"
)

func TestVerifyEvent(t *testing.T) {
	key := EventKey("whsec_c2VjcmV0LWtleQ==") // "secret-key"
	if string(key) != "secret-key" {
		t.Fatalf("EventKey decoded %q", key)
	}
	if string(EventKey("plain")) != "plain" {
		t.Fatal("a secret without whsec_ is not used as it is")
	}
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"type":"bounce","data":{"email":"a@b.test"}}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := SignEvent(key, "msg_1", now.Unix(), body)
	cases := []struct {
		name, id, ts, sig string
		body              []byte
		want              error
	}{
		{"good", "msg_1", ts, good, body, nil},
		{"good among others", "msg_1", ts, "v2,abc v1,AAAA " + good, body, nil},
		{"other body", "msg_1", ts, good, []byte(`{}`), ErrEventSignatureMismatch},
		{"other id", "msg_2", ts, good, body, ErrEventSignatureMismatch},
		{"old", "msg_1", strconv.FormatInt(now.Add(-time.Hour).Unix(), 10), SignEvent(key, "msg_1", now.Add(-time.Hour).Unix(), body), body, ErrEventTimestamp},
		{"future", "msg_1", strconv.FormatInt(now.Add(time.Hour).Unix(), 10), SignEvent(key, "msg_1", now.Add(time.Hour).Unix(), body), body, ErrEventTimestamp},
		{"no id", "", ts, good, body, ErrEventSignatureMalformed},
		{"bad ts", "msg_1", "soon", good, body, ErrEventSignatureMalformed},
		{"no comma", "msg_1", ts, "garbage", body, ErrEventSignatureMalformed},
		{"empty", "msg_1", ts, "", body, ErrEventSignatureMalformed},
	}
	for _, c := range cases {
		if got := VerifyEvent(key, c.id, c.ts, c.sig, c.body, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzVerifyEvent checks that no input panics, that what SignEvent signs verifies, and that a
// different body never does.
func FuzzVerifyEvent(f *testing.F) {
	f.Add("msg_1", "1800000000", "v1,AAAA", []byte(`{"type":"bounce"}`), []byte("k"))
	f.Add("", "", "", []byte{}, []byte{})
	f.Add("id", "-1", "v1, v1,,, ,v1", []byte("x"), []byte("whsec_"))
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, id, ts, sig string, body, key []byte) {
		_ = VerifyEvent(key, id, ts, sig, body, now)
		if id == "" || len(id) > 256 {
			return
		}
		good := SignEvent(key, id, now.Unix(), body)
		stamp := strconv.FormatInt(now.Unix(), 10)
		if err := VerifyEvent(key, id, stamp, good, body, now); err != nil {
			t.Fatalf("a signed event does not verify: %v", err)
		}
		if err := VerifyEvent(key, id, stamp, good, append(append([]byte{}, body...), 'x'), now); err == nil {
			t.Fatal("another body verifies")
		}
	})
}

func TestParseEvent(t *testing.T) {
	cases := []struct {
		body   string
		status string
		emails int
		ignore bool
		bad    bool
	}{
		{`{"type":"bounce","data":{"email":"A@B.test"}}`, "bounced", 1, false, false},
		{`{"type":"email.complained","data":{"to":["a@b.test","c@d.test"]}}`, "complained", 2, false, false},
		{`{"type":"email.bounced","data":{"to":"a@b.test","bounce":{"type":"Transient"}}}`, "", 0, true, false},
		{`{"type":"email.delivered","data":{"to":"a@b.test"}}`, "", 0, true, false},
		{`{"type":"bounce","data":{}}`, "", 0, false, true},
		{`{"type":"bounce","data":{"email":"nope"}}`, "", 0, false, true},
		{`[`, "", 0, false, true},
	}
	for _, c := range cases {
		status, emails, ignore, err := ParseEvent([]byte(c.body))
		if (err != nil) != c.bad || status != c.status || len(emails) != c.emails || ignore != c.ignore {
			t.Errorf("%s: %q %v %v %v", c.body, status, emails, ignore, err)
		}
	}
}
