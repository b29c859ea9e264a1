// Package newslettertest holds a conformance suite that every newsletter.Store (the SQL ones on
// both engines) must pass.
package newslettertest

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/newsletter"
)

// TestStore runs the conformance suite; open returns a fresh, empty store for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) newsletter.Store) {
	ctx := context.Background()
	noAlso := func(*sql.Tx, *folio.Subscriber) error { return nil }
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	sub := func(email string, at time.Time) folio.Subscriber {
		return folio.Subscriber{ID: folio.NewID(), Email: email, Name: "Ada", Source: "footer", Status: folio.SubscriberPending, CreatedAt: at,
			UnsubscribeToken: newsletter.NewToken()}
	}
	conf := func(token string, at time.Time) newsletter.Confirmation {
		return newsletter.Confirmation{TokenHash: newsletter.TokenHash(token), ExpiresAt: at.Add(7 * 24 * time.Hour),
			MailedAt: at, ResendAfter: at.Add(-15 * time.Minute)}
	}
	subscribe := func(t *testing.T, s newsletter.Store, email, token string, at time.Time) bool {
		t.Helper()
		ran := false
		mailed, err := s.Subscribe(ctx, sub(email, at), conf(token, at), func(*sql.Tx) error { ran = true; return nil })
		if err != nil {
			t.Fatalf("Subscribe(%s): %v", email, err)
		}
		if mailed != ran {
			t.Fatalf("Subscribe(%s): mailed %v but also ran %v", email, mailed, ran)
		}
		return mailed
	}
	list := func(t *testing.T, s newsletter.Store, f folio.SubscriberFilter) []folio.Subscriber {
		t.Helper()
		subs, total, err := s.Subscribers(ctx, f, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(subs) {
			t.Fatalf("Subscribers(%+v): total %d, %d rows", f, total, len(subs))
		}
		return subs
	}

	t.Run("SubscribeConfirm", func(t *testing.T) {
		s := open(t)
		if !subscribe(t, s, "ada@example.com", "token-aaaaaaaaaaaaaaaa", now) {
			t.Fatal("a new address is not mailed")
		}
		got := list(t, s, folio.SubscriberFilter{})
		if len(got) != 1 || got[0].Status != folio.SubscriberPending || got[0].ConfirmedAt != nil || got[0].Name != "Ada" || got[0].Source != "footer" {
			t.Fatalf("after Subscribe: %+v", got)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("another-token-aaaaaaa"), now, noAlso); !folio.IsNotFound(err) {
			t.Fatalf("unknown token: %v, want ENOTFOUND", err)
		}
		c, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-aaaaaaaaaaaaaaaa"), now.Add(time.Hour), noAlso)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != folio.SubscriberActive || c.ConfirmedAt == nil || !c.ConfirmedAt.Equal(now.Add(time.Hour)) || c.Email != "ada@example.com" {
			t.Fatalf("confirmed: %+v", c)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-aaaaaaaaaaaaaaaa"), now.Add(time.Hour), noAlso); !folio.IsNotFound(err) {
			t.Fatalf("a token confirms twice: %v", err)
		}
		// An active address is never mailed again, and stays active.
		if subscribe(t, s, "ada@example.com", "token-bbbbbbbbbbbbbbbb", now.Add(48*time.Hour)) {
			t.Fatal("an active address got a confirmation mail")
		}
		if got := list(t, s, folio.SubscriberFilter{Status: folio.SubscriberActive}); len(got) != 1 {
			t.Fatalf("active: %+v", got)
		}
	})

	t.Run("ExpiredToken", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "bo@example.com", "token-cccccccccccccccc", now)
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-cccccccccccccccc"), now.Add(7*24*time.Hour), noAlso); !folio.IsNotFound(err) {
			t.Fatalf("an expired token: %v, want ENOTFOUND", err)
		}
	})

	t.Run("ResendInterval", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "cy@example.com", "token-dddddddddddddddd", now)
		if subscribe(t, s, "cy@example.com", "token-eeeeeeeeeeeeeeee", now.Add(5*time.Minute)) {
			t.Fatal("a second mail within the interval")
		}
		// The held-back request did not replace the token.
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-eeeeeeeeeeeeeeee"), now.Add(6*time.Minute), noAlso); !folio.IsNotFound(err) {
			t.Fatalf("the token of a request that sent no mail confirms: %v", err)
		}
		if !subscribe(t, s, "cy@example.com", "token-ffffffffffffffff", now.Add(20*time.Minute)) {
			t.Fatal("no mail after the interval")
		}
		// The new token replaces the old one.
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-dddddddddddddddd"), now.Add(21*time.Minute), noAlso); !folio.IsNotFound(err) {
			t.Fatalf("a replaced token confirms: %v", err)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-ffffffffffffffff"), now.Add(21*time.Minute), noAlso); err != nil {
			t.Fatal(err)
		}
		if got := list(t, s, folio.SubscriberFilter{}); len(got) != 1 {
			t.Fatalf("one address, %d rows", len(got))
		}
	})

	t.Run("ConcurrentSubscribeMailsOnce", func(t *testing.T) {
		s := open(t)
		var mails atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok := "token-concurrent-" + string(rune('a'+i)) + "aaaaaaaaaa"
				if _, err := s.Subscribe(ctx, sub("dee@example.com", now), conf(tok, now), func(*sql.Tx) error { mails.Add(1); return nil }); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n := mails.Load(); n != 1 {
			t.Fatalf("%d confirmation mails for one address, want 1", n)
		}
	})

	t.Run("AlsoFailsNothingStored", func(t *testing.T) {
		s := open(t)
		boom := folio.Errorf(folio.EINTERNAL, "boom")
		if _, err := s.Subscribe(ctx, sub("ed@example.com", now), conf("token-gggggggggggggggg", now), func(*sql.Tx) error { return boom }); err == nil {
			t.Fatal("Subscribe succeeded though also failed")
		}
		if got := list(t, s, folio.SubscriberFilter{}); len(got) != 0 {
			t.Fatalf("stored without its mail: %+v", got)
		}
	})

	t.Run("ListFilters", func(t *testing.T) {
		s := open(t)
		for i, e := range []string{"fay@example.com", "gus@example.org", "hal_x@example.net"} {
			subscribe(t, s, e, "token-list-"+string(rune('a'+i))+"aaaaaaaaaaaa", now.Add(time.Duration(i)*time.Minute))
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-list-baaaaaaaaaaaa"), now.Add(time.Hour), noAlso); err != nil {
			t.Fatal(err)
		}
		all := list(t, s, folio.SubscriberFilter{})
		if len(all) != 3 || all[0].Email != "hal_x@example.net" || all[2].Email != "fay@example.com" {
			t.Fatalf("newest first: %+v", all)
		}
		if got := list(t, s, folio.SubscriberFilter{Status: folio.SubscriberActive}); len(got) != 1 || got[0].Email != "gus@example.org" {
			t.Fatalf("status=active: %+v", got)
		}
		if got := list(t, s, folio.SubscriberFilter{Q: "EXAMPLE.ORG"}); len(got) != 1 || got[0].Email != "gus@example.org" {
			t.Fatalf("q=EXAMPLE.ORG: %+v", got)
		}
		// A LIKE wildcard in q is a character.
		if got := list(t, s, folio.SubscriberFilter{Q: "_x"}); len(got) != 1 || got[0].Email != "hal_x@example.net" {
			t.Fatalf("q=_x: %+v", got)
		}
		if got := list(t, s, folio.SubscriberFilter{Q: "ada"}); len(got) != 3 {
			t.Fatalf("q matches the name: %+v", got)
		}
		page2, total, err := s.Subscribers(ctx, folio.SubscriberFilter{}, 2, 2)
		if err != nil || total != 3 || len(page2) != 1 || page2[0].Email != "fay@example.com" {
			t.Fatalf("page 2 of 2: %+v %d %v", page2, total, err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "ivy@example.com", "token-delete-aaaaaaaaaa", now)
		subscribe(t, s, "jo@example.com", "token-delete-bbbbbbbbbb", now)
		got := list(t, s, folio.SubscriberFilter{Q: "ivy"})
		if len(got) != 1 {
			t.Fatalf("ivy: %+v", got)
		}
		if err := s.DeleteSubscriber(ctx, got[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSubscriber(ctx, got[0].ID); !folio.IsNotFound(err) {
			t.Fatalf("deleting twice: %v, want ENOTFOUND", err)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-delete-aaaaaaaaaa"), now, noAlso); !folio.IsNotFound(err) {
			t.Fatalf("an erased subscriber's link confirms: %v", err)
		}
		if got := list(t, s, folio.SubscriberFilter{}); len(got) != 1 || got[0].Email != "jo@example.com" {
			t.Fatalf("after delete: %+v", got)
		}
	})

	t.Run("ConfirmAlso", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "kim@example.com", "token-also-aaaaaaaaaaaa", now)
		boom := folio.Errorf(folio.EINTERNAL, "boom")
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-also-aaaaaaaaaaaa"), now, func(*sql.Tx, *folio.Subscriber) error { return boom }); err == nil {
			t.Fatal("ConfirmSubscriber succeeded though also failed")
		}
		var seen *folio.Subscriber
		c, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-also-aaaaaaaaaaaa"), now, func(_ *sql.Tx, sub *folio.Subscriber) error { seen = sub; return nil })
		if err != nil {
			t.Fatalf("the token did not survive the failed confirmation: %v", err)
		}
		if seen == nil || seen.Status != folio.SubscriberActive || seen.UnsubscribeToken == "" || seen.UnsubscribeToken != c.UnsubscribeToken {
			t.Fatalf("also saw %+v", seen)
		}
	})

	t.Run("Unsubscribe", func(t *testing.T) {
		s := open(t)
		in := sub("lou@example.com", now)
		if _, err := s.Subscribe(ctx, in, conf("token-unsub-aaaaaaaaaaa", now), func(*sql.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-unsub-aaaaaaaaaaa"), now, noAlso); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Unsubscribe(ctx, "no-such-unsubscribe-token", now); !folio.IsNotFound(err) {
			t.Fatalf("unknown token: %v, want ENOTFOUND", err)
		}
		for range 2 { // repeating it gives the same answer
			got, err := s.Unsubscribe(ctx, in.UnsubscribeToken, now.Add(time.Hour))
			if err != nil || got.Status != folio.SubscriberUnsubscribed || got.Email != "lou@example.com" {
				t.Fatalf("Unsubscribe: %+v, %v", got, err)
			}
		}
		if got := list(t, s, folio.SubscriberFilter{Status: folio.SubscriberUnsubscribed}); len(got) != 1 {
			t.Fatalf("unsubscribed: %+v", got)
		}
		// Subscribing again takes a new confirmation; the old link still unsubscribes.
		if !subscribe(t, s, "lou@example.com", "token-unsub-bbbbbbbbbbb", now.Add(2*time.Hour)) {
			t.Fatal("an unsubscribed address asking again gets no confirmation mail")
		}
		if got := list(t, s, folio.SubscriberFilter{Status: folio.SubscriberUnsubscribed}); len(got) != 1 {
			t.Fatalf("a request to subscribe again changed the status: %+v", got)
		}
	})

	t.Run("Import", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "mo@example.com", "token-import-aaaaaaaaaa", now)
		active := sub("ned@example.com", now)
		active.Status, active.ConfirmedAt = folio.SubscriberActive, &now
		n, err := s.ImportSubscribers(ctx, []folio.Subscriber{active, sub("mo@example.com", now)})
		if err != nil || n != 1 {
			t.Fatalf("ImportSubscribers: %d, %v; want 1 (mo is listed)", n, err)
		}
		got := list(t, s, folio.SubscriberFilter{Status: folio.SubscriberActive})
		if len(got) != 1 || got[0].Email != "ned@example.com" || got[0].ConfirmedAt == nil || !got[0].ConfirmedAt.Equal(now) {
			t.Fatalf("imported: %+v", got)
		}
		// The listed address kept its confirmation token.
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-import-aaaaaaaaaa"), now, noAlso); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("EraseKeepsHash", func(t *testing.T) {
		s := open(t)
		subscribe(t, s, "nia@example.com", "token-erase-aaaaaaaaaaa", now)
		got := list(t, s, folio.SubscriberFilter{})
		hash := func(email string) string { return "h:" + email }
		if err := s.EraseSubscriber(ctx, got[0].ID, hash, now); err != nil {
			t.Fatal(err)
		}
		if err := s.EraseSubscriber(ctx, got[0].ID, hash, now); !folio.IsNotFound(err) {
			t.Fatalf("erasing twice: %v, want ENOTFOUND", err)
		}
		if got := list(t, s, folio.SubscriberFilter{}); len(got) != 0 {
			t.Fatalf("after erase: %+v", got)
		}
		erased, err := s.ErasedAmong(ctx, []string{"h:nia@example.com", "h:other@example.com"})
		if err != nil || len(erased) != 1 || !erased["h:nia@example.com"] {
			t.Fatalf("ErasedAmong: %v %v", erased, err)
		}
		// Confirming again drops the mark (ForgetErased runs in the confirmation's transaction).
		subscribe(t, s, "nia@example.com", "token-erase-bbbbbbbbbbb", now)
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-erase-bbbbbbbbbbb"), now, func(tx *sql.Tx, sub *folio.Subscriber) error {
			return s.ForgetErased(ctx, tx, hash(sub.Email))
		}); err != nil {
			t.Fatal(err)
		}
		if erased, _ := s.ErasedAmong(ctx, []string{"h:nia@example.com"}); len(erased) != 0 {
			t.Fatalf("still erased: %v", erased)
		}
	})

	t.Run("MarkAndPreferences", func(t *testing.T) {
		s := open(t)
		in := sub("oz@example.com", now)
		if _, err := s.Subscribe(ctx, in, conf("token-pref-aaaaaaaaaaaa", now), func(*sql.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ConfirmSubscriber(ctx, newsletter.TokenHash("token-pref-aaaaaaaaaaaa"), now, noAlso); err != nil {
			t.Fatal(err)
		}
		got, err := s.SubscriberByToken(ctx, in.UnsubscribeToken)
		if err != nil || got.Preference != folio.PreferencePosts || got.Status != folio.SubscriberActive {
			t.Fatalf("SubscriberByToken: %+v %v", got, err)
		}
		if _, err := s.SubscriberByToken(ctx, "no-such-token-aaaaaaaa"); !folio.IsNotFound(err) {
			t.Fatalf("unknown token: %v", err)
		}
		if _, err := s.Unsubscribe(ctx, in.UnsubscribeToken, now); err != nil {
			t.Fatal(err)
		}
		if got, err := s.SetPreference(ctx, in.UnsubscribeToken, folio.PreferenceNone, false, now); err != nil || got.Status != folio.SubscriberUnsubscribed || got.Preference != folio.PreferenceNone {
			t.Fatalf("none: %+v %v", got, err)
		}
		if got, err := s.SetPreference(ctx, in.UnsubscribeToken, folio.PreferenceDigest, true, now); err != nil || got.Status != folio.SubscriberActive || got.Preference != folio.PreferenceDigest {
			t.Fatalf("digest after unsubscribing: %+v %v", got, err)
		}
		if err := s.MarkSubscriber(ctx, "OZ@example.com", folio.SubscriberBounced, now); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkSubscriber(ctx, "nobody@example.com", folio.SubscriberBounced, now); err != nil {
			t.Fatalf("an unknown address: %v", err)
		}
		// A bounced address is not made active again by its preferences.
		if got, err := s.SetPreference(ctx, in.UnsubscribeToken, folio.PreferencePosts, true, now); err != nil || got.Status != folio.SubscriberBounced {
			t.Fatalf("bounced, then posts: %+v %v", got, err)
		}
	})
}

// TestSendStore checks the send rows of a SendStore: open returns a fresh store and its list.
func TestSendStore(t *testing.T, open func(t *testing.T) (newsletter.Store, newsletter.SendStore)) {
	ctx := context.Background()
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	seed := func(t *testing.T, s newsletter.Store, pref string, emails ...string) {
		t.Helper()
		var subs []folio.Subscriber
		for _, e := range emails {
			subs = append(subs, folio.Subscriber{ID: folio.NewID(), Email: e, Status: folio.SubscriberActive, CreatedAt: now, ConfirmedAt: &now,
				UnsubscribeToken: newsletter.NewToken()})
		}
		if _, err := s.ImportSubscribers(ctx, subs); err != nil {
			t.Fatal(err)
		}
		for _, sub := range subs {
			if _, err := s.SetPreference(ctx, sub.UnsubscribeToken, pref, false, now); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("FanOutClaimFinish", func(t *testing.T) {
		list, sends := open(t)
		seed(t, list, folio.PreferenceDigest, "a@example.com", "b@example.com", "c@example.com")
		seed(t, list, folio.PreferencePosts, "p@example.com")
		const id = "digest:2030-W09"
		for i, want := range []bool{true, false} {
			created, err := sends.CreateDigestIssue(ctx, id, now.AddDate(0, 0, -7), now, now)
			if err != nil || created != want {
				t.Fatalf("CreateDigestIssue #%d: %v %v", i, created, err)
			}
		}
		for range 2 { // the second fan-out writes nothing more
			is, err := sends.FanOut(ctx, id, folio.PreferenceDigest, now)
			if err != nil || is.Total != 3 || !is.FannedOut || is.Kind != "digest" || !is.PeriodEnd.Equal(now) {
				t.Fatalf("FanOut: %+v %v", is, err)
			}
		}
		if _, err := sends.FanOut(ctx, "digest:none", folio.PreferenceDigest, now); !folio.IsNotFound(err) {
			t.Fatalf("FanOut of no issue: %v", err)
		}
		a, err := sends.ClaimSends(ctx, id, "a", now, now.Add(time.Minute), 2)
		if err != nil || len(a) != 2 || a[0].Attempts != 1 || a[0].Email == "" || a[0].Status != folio.SubscriberActive || a[0].UnsubscribeToken == "" {
			t.Fatalf("claim a: %+v %v", a, err)
		}
		b, err := sends.ClaimSends(ctx, id, "b", now, now.Add(time.Minute), 5)
		if err != nil || len(b) != 1 || b[0].SubscriberID == a[0].SubscriberID || b[0].SubscriberID == a[1].SubscriberID {
			t.Fatalf("claim b: %+v %v", b, err)
		}
		if more, _ := sends.ClaimSends(ctx, id, "c", now, now.Add(time.Minute), 5); len(more) != 0 {
			t.Fatalf("claimed leased rows: %+v", more)
		}
		if err := sends.FinishSend(ctx, id, a[0].SubscriberID, "b", newsletter.SendOutcome{Status: newsletter.SendSent, At: now}); !errors.Is(err, newsletter.ErrSendLeaseLost) {
			t.Fatalf("another's row: %v", err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(sends.FinishSend(ctx, id, a[0].SubscriberID, "a", newsletter.SendOutcome{Status: newsletter.SendSent, At: now}))
		must(sends.FinishSend(ctx, id, a[1].SubscriberID, "a", newsletter.SendOutcome{Status: newsletter.SendPending, At: now, RetryAt: now.Add(time.Hour), Error: "451"}))
		must(sends.FinishSend(ctx, id, b[0].SubscriberID, "b", newsletter.SendOutcome{Status: newsletter.SendFailed, At: now, Error: "550", Bounced: true}))
		left, next, err := sends.IssueRemaining(ctx, id)
		if err != nil || left != 1 || !next.Equal(now.Add(time.Hour)) {
			t.Fatalf("IssueRemaining: %d %v %v", left, next, err)
		}
		if early, _ := sends.ClaimSends(ctx, id, "a", now.Add(time.Minute), now.Add(2*time.Minute), 5); len(early) != 0 {
			t.Fatalf("claimed before its retry: %+v", early)
		}
		retry, err := sends.ClaimSends(ctx, id, "a", now.Add(time.Hour), now.Add(2*time.Hour), 5)
		if err != nil || len(retry) != 1 || retry[0].Attempts != 2 {
			t.Fatalf("retry: %+v %v", retry, err)
		}
		// The lease lapses: another claimer takes the row, and the first one's outcome is refused.
		taken, err := sends.ClaimSends(ctx, id, "c", now.Add(3*time.Hour), now.Add(4*time.Hour), 5)
		if err != nil || len(taken) != 1 || taken[0].Attempts != 3 {
			t.Fatalf("after the lease: %+v %v", taken, err)
		}
		if err := sends.FinishSend(ctx, id, retry[0].SubscriberID, "a", newsletter.SendOutcome{Status: newsletter.SendSent, At: now}); !errors.Is(err, newsletter.ErrSendLeaseLost) {
			t.Fatalf("a lapsed lease: %v", err)
		}
		bounced, _, err := list.Subscribers(ctx, folio.SubscriberFilter{Status: folio.SubscriberBounced}, 1, 10)
		if err != nil || len(bounced) != 1 || bounced[0].ID != b[0].SubscriberID {
			t.Fatalf("bounced: %+v %v", bounced, err)
		}
	})
}
