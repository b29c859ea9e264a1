package extblog_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/extblog"
)

func hexMAC(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	const secret = "whsec_test"
	body := []byte(`{"event":"POST_PUBLISHED","data":{"postId":"p1"}}`)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	ms := strconv.FormatInt(now.UnixMilli(), 10)
	s := strconv.FormatInt(now.Unix(), 10)
	old := strconv.FormatInt(now.Add(-301*time.Second).UnixMilli(), 10)
	future := strconv.FormatInt(now.Add(301*time.Second).Unix(), 10)
	good := func(ts string) string { return hexMAC(secret, ts+"."+string(body)) }
	plain := hexMAC(secret, string(body))

	for _, tc := range []struct {
		name, header string
		secret       string
		tolerance    time.Duration
		want         error
	}{
		{"t in milliseconds", "t=" + ms + ",v1=" + good(ms), secret, 0, nil},
		{"SignWebhook output", extblog.SignWebhook(secret, body, now), secret, 0, nil},
		{"t in seconds", "t=" + s + ",v1=" + good(s), secret, 0, nil},
		{"spaces and upper-case hex", " t=" + s + ", v1=" + strings.ToUpper(good(s)) + " ", secret, 0, nil},
		{"several v1, one right", "t=" + ms + ",v1=" + strings.Repeat("ab", 32) + ",v1=" + good(ms), secret, 0, nil},
		{"v0 ignored", "t=" + ms + ",v0=zzz,v1=" + good(ms), secret, 0, nil},
		{"just inside the tolerance", "t=" + strconv.FormatInt(now.Add(-299*time.Second).Unix(), 10) + ",v1=" +
			good(strconv.FormatInt(now.Add(-299*time.Second).Unix(), 10)), secret, 0, nil},
		{"too old", "t=" + old + ",v1=" + good(old), secret, 0, extblog.ErrSignatureExpired},
		{"too far ahead", "t=" + future + ",v1=" + good(future), secret, 0, extblog.ErrSignatureExpired},
		{"old but within a wider tolerance", "t=" + old + ",v1=" + good(old), secret, time.Hour, nil},
		{"wrong secret", "t=" + ms + ",v1=" + good(ms), "other", 0, extblog.ErrSignatureMismatch},
		{"signature of another timestamp", "t=" + s + ",v1=" + good(ms), secret, 0, extblog.ErrSignatureMismatch},
		{"plain hex", plain, secret, 0, nil},
		{"sha256= prefix", "sha256=" + plain, secret, 0, nil},
		{"SHA256= prefix", "SHA256=" + plain, secret, 0, nil},
		{"plain hex, wrong", strings.Repeat("0", 64), secret, 0, extblog.ErrSignatureMismatch},
		{"missing", "", secret, 0, extblog.ErrSignatureMissing},
		{"no secret configured", plain, "", 0, extblog.ErrNoWebhookSecret},
		{"short hex", plain[:40], secret, 0, extblog.ErrSignatureMalformed},
		{"not hex", strings.Repeat("zz", 32), secret, 0, extblog.ErrSignatureMalformed},
		{"no v1", "t=" + ms, secret, 0, extblog.ErrSignatureMalformed},
		{"no t", "v1=" + good(ms), secret, 0, extblog.ErrSignatureMalformed},
		{"two t", "t=" + ms + ",t=" + ms + ",v1=" + good(ms), secret, 0, extblog.ErrSignatureMalformed},
		{"t not a number", "t=12ab,v1=" + good(ms), secret, 0, extblog.ErrSignatureMalformed},
		{"negative t", "t=-5,v1=" + good("-5"), secret, 0, extblog.ErrSignatureMalformed},
		{"part without =", "t=" + ms + ",v1", secret, 0, extblog.ErrSignatureMalformed},
		{"v1 not hex", "t=" + ms + ",v1=xyz", secret, 0, extblog.ErrSignatureMalformed},
		{"huge t", "t=99999999999999999999999,v1=" + good("99999999999999999999999"), secret, 0, extblog.ErrSignatureMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := extblog.VerifySignature(tc.header, body, tc.secret, now, tc.tolerance)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	// Any change to the body breaks every form.
	tampered := []byte(strings.Replace(string(body), "p1", "p2", 1))
	for _, h := range []string{"t=" + ms + ",v1=" + good(ms), plain} {
		if err := extblog.VerifySignature(h, tampered, secret, now, 0); !errors.Is(err, extblog.ErrSignatureMismatch) {
			t.Errorf("tampered body with %q: %v", h, err)
		}
	}
}

func TestDecodeWebhook(t *testing.T) {
	t.Parallel()
	pub := time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("", 3600))
	for _, tc := range []struct {
		name, body string
		want       extblog.WebhookEvent
		wantErr    error // nil with wantFail: any error
		wantFail   bool
	}{
		{name: "spec shape", body: `{"event":"POST_PUBLISHED","data":{"postId":"p1","slug":"hello","title":"Hello","publishedAt":"2026-02-03T04:05:06+01:00"}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostPublished, PostID: "p1", Slug: "hello", Title: "Hello", PublishedAt: &pub}},
		{name: "spec shape, minimal", body: `{"event":"POST_DELETED","data":{"postId":"p1"}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostDeleted, PostID: "p1"}},
		{name: "spec shape, null publishedAt", body: `{"event":"POST_UPDATED","data":{"postId":"p1","publishedAt":null}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostUpdated, PostID: "p1"}},
		{name: "native shape", body: `{"metadata":{"uuid":"5e74b628-162a-4fe7-8130-1d5db664600d"},"data":{"publication":{"id":"5f5f88cc93fd9275f04d3a5f"},"post":{"id":"65b24b924bf2eb3c5d3f01c8"},"eventType":"post_published"}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostPublished, PostID: "65b24b924bf2eb3c5d3f01c8",
				DeliveryID: "5e74b628-162a-4fe7-8130-1d5db664600d", PublicationID: "5f5f88cc93fd9275f04d3a5f"}},
		{name: "native updated", body: `{"metadata":{"uuid":"u2"},"data":{"publication":{"id":"pub"},"post":{"id":"x"},"eventType":"post_updated"}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostUpdated, PostID: "x", DeliveryID: "u2", PublicationID: "pub"}},
		{name: "native deleted", body: `{"metadata":{"uuid":"u3"},"data":{"publication":{"id":"pub"},"post":{"id":"x"},"eventType":"post_deleted"}}`,
			want: extblog.WebhookEvent{Kind: extblog.EventPostDeleted, PostID: "x", DeliveryID: "u3", PublicationID: "pub"}},
		{name: "static page event", body: `{"metadata":{"uuid":"u"},"data":{"publication":{"id":"p"},"staticPage":{"id":"s"},"eventType":"static_page_edited"}}`,
			wantErr: extblog.ErrIgnoredEvent},
		{name: "unknown event", body: `{"event":"POST_LIKED","data":{"postId":"p1"}}`, wantFail: true},
		{name: "missing postId", body: `{"event":"POST_PUBLISHED","data":{"slug":"s"}}`, wantFail: true},
		{name: "empty postId", body: `{"event":"POST_PUBLISHED","data":{"postId":""}}`, wantFail: true},
		{name: "native without post", body: `{"data":{"eventType":"post_published"}}`, wantFail: true},
		{name: "bad publishedAt", body: `{"event":"POST_PUBLISHED","data":{"postId":"p","publishedAt":"yesterday"}}`, wantFail: true},
		{name: "postId not a string", body: `{"event":"POST_PUBLISHED","data":{"postId":7}}`, wantFail: true},
		{name: "no data", body: `{"event":"POST_PUBLISHED"}`, wantFail: true},
		{name: "no event", body: `{"data":{"postId":"p"}}`, wantFail: true},
		{name: "control character", body: `{"event":"POST_PUBLISHED","data":{"postId":"p\u0000"}}`, wantFail: true},
		{name: "array", body: `[]`, wantFail: true},
		{name: "not JSON", body: `event=POST_PUBLISHED`, wantFail: true},
		{name: "trailing data", body: `{"event":"POST_PUBLISHED","data":{"postId":"p"}} {}`, wantFail: true},
		{name: "empty", body: ``, wantFail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := extblog.DecodeWebhook([]byte(tc.body))
			switch {
			case tc.wantErr != nil || tc.wantFail:
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
					t.Errorf("got %+v, %v; want error %v", got, err, tc.wantErr)
				}
				if errors.Is(err, extblog.ErrIgnoredEvent) != errors.Is(tc.wantErr, extblog.ErrIgnoredEvent) {
					t.Errorf("ErrIgnoredEvent mismatch: %v", err)
				}
			case err != nil:
				t.Fatalf("DecodeWebhook: %v", err)
			default:
				if (got.PublishedAt == nil) != (tc.want.PublishedAt == nil) ||
					(got.PublishedAt != nil && !got.PublishedAt.Equal(*tc.want.PublishedAt)) {
					t.Errorf("publishedAt %v, want %v", got.PublishedAt, tc.want.PublishedAt)
				}
				got.PublishedAt, tc.want.PublishedAt = nil, nil
				if got != tc.want {
					t.Errorf("got %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}

func FuzzVerifySignature(f *testing.F) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	body := []byte(`{"event":"POST_UPDATED","data":{"postId":"p"}}`)
	f.Add(extblog.SignWebhook("s", body, now), body, "s")
	f.Add("sha256="+hexMAC("s", string(body)), body, "s")
	f.Add("t=1,v1=,v1=x,t=", []byte{}, "k")
	f.Add(",,,=,=", []byte("x"), "k")
	f.Fuzz(func(t *testing.T, header string, body []byte, secret string) {
		err := extblog.VerifySignature(header, body, secret, now, time.Minute)
		if err == nil && secret == "" {
			t.Fatal("verified without a secret")
		}
		if secret == "" {
			return
		}
		// What we sign always verifies, in both forms; flipping the body never does.
		if err := extblog.VerifySignature(extblog.SignWebhook(secret, body, now), body, secret, now, time.Minute); err != nil {
			t.Fatalf("own signature rejected: %v", err)
		}
		if err := extblog.VerifySignature(hexMAC(secret, string(body)), body, secret, now, time.Minute); err != nil {
			t.Fatalf("own plain signature rejected: %v", err)
		}
		other := append([]byte{'!'}, body...)
		if extblog.VerifySignature(extblog.SignWebhook(secret, body, now), other, secret, now, time.Minute) == nil {
			t.Fatal("signature of another body accepted")
		}
	})
}

func FuzzDecodeWebhook(f *testing.F) {
	f.Add([]byte(`{"event":"POST_PUBLISHED","data":{"postId":"p1","slug":"s","title":"T","publishedAt":"2026-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"metadata":{"uuid":"u"},"data":{"publication":{"id":"p"},"post":{"id":"x"},"eventType":"post_deleted"}}`))
	f.Add([]byte(`{"data":{"eventType":"static_page_published"}}`))
	f.Add([]byte(`{"event":null,"data":{}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := extblog.DecodeWebhook(body)
		if err != nil {
			return
		}
		switch ev.Kind {
		case extblog.EventPostPublished, extblog.EventPostUpdated, extblog.EventPostDeleted:
		default:
			t.Fatalf("decoded kind %q", ev.Kind)
		}
		if ev.PostID == "" || len(ev.PostID) > 128 {
			t.Fatalf("decoded post id %q", ev.PostID)
		}
	})
}
