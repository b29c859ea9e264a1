package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/foliohq/folio/bench/internal/procstat"
)

// idleGap is the longest pause between two mails of one instance still counted as sending:
// longer pauses are waits (for a lease to lapse), not throughput.
const idleGap = time.Second

// report prints the figures and the checks, and says whether the checks hold.
func report(o options, emails []string, got []delivery, insts []*instance, res watchResult) bool {
	at := func(t time.Time) string { return fmt.Sprintf("+%.1f s", t.Sub(res.PublishedAt).Seconds()) }
	sort.SliceStable(got, func(i, j int) bool { return got[i].At.Before(got[j].At) })

	fmt.Println()
	fmt.Printf("== newsletter: one post to %d confirmed subscribers, two folio instances on PostgreSQL, real SMTP (go-smtp)\n", len(emails))
	if len(got) == 0 {
		fmt.Println("no mail received")
		return false
	}
	fmt.Printf("publication → first mail %.2f s; → progress sent %.1f s (wall, with the lease waits)\n",
		got[0].At.Sub(res.PublishedAt).Seconds(), res.SentAt.Sub(res.PublishedAt).Seconds())
	var bytes int64
	activeAll := time.Duration(0)
	for i, in := range insts {
		var n int
		var first, last, prev time.Time
		var active time.Duration
		for _, d := range got {
			if d.Instance != i {
				continue
			}
			if n == 0 {
				first = d.At
			} else if gap := d.At.Sub(prev); gap < idleGap {
				active += gap
			}
			prev, last = d.At, d.At
			n++
		}
		activeAll += active
		peak, hwm := in.RSS()
		role := "survived"
		if res.Killed == i {
			role = "killed at " + at(res.KilledAt)
		}
		if n == 0 {
			fmt.Printf("%s (%s): no mail handed over; peak RSS %.1f MiB, VmHWM %.1f MiB\n", in.Name, role, procstat.MiB(peak), procstat.MiB(hwm))
			continue
		}
		fmt.Printf("%s (%s): %d mails, %s … %s, %.0f mails/s while sending (%.1f s sending); peak RSS during the send %.1f MiB, VmHWM %.1f MiB\n",
			in.Name, role, n, at(first), at(last), float64(n)/max(active.Seconds(), 1e-3), active.Seconds(), procstat.MiB(peak), procstat.MiB(hwm))
	}
	for _, d := range got {
		bytes += d.Bytes
	}
	fmt.Printf("all: %d mails handed to SMTP, %.0f mails/s while sending (%.1f s), mean body %.1f KiB\n",
		len(got), float64(len(got))/max(activeAll.Seconds(), 1e-3), activeAll.Seconds(), float64(bytes)/float64(len(got))/1024)
	for i := 1; i < len(got); i++ {
		if gap := got[i].At.Sub(got[i-1].At); gap >= 5*time.Second {
			fmt.Printf("pause: %s … %s (%.1f s), then %s went on\n", at(got[i-1].At), at(got[i].At), gap.Seconds(), insts[got[i].Instance].Name)
		}
	}

	// The checks: every address once; duplicates counted by recipient and by Message-ID.
	want := make(map[string]bool, len(emails))
	for _, e := range emails {
		want[e] = true
	}
	byTo, byID := map[string]int{}, map[string]int{}
	ids := map[string]map[string]bool{} // recipient → the Message-IDs it got
	unexpected, noID := 0, 0
	for _, d := range got {
		byTo[d.To]++
		if !want[d.To] {
			unexpected++
		}
		if d.MessageID == "" {
			noID++
		} else {
			byID[d.MessageID]++
		}
		if ids[d.To] == nil {
			ids[d.To] = map[string]bool{}
		}
		ids[d.To][d.MessageID] = true
	}
	lost := 0
	for _, e := range emails {
		if byTo[e] == 0 {
			lost++
		}
	}
	dupTo, dupID, dupOtherID := 0, 0, 0
	for to, c := range byTo {
		if c > 1 {
			dupTo += c - 1
			dupOtherID += len(ids[to]) - 1
		}
	}
	for _, c := range byID {
		if c > 1 {
			dupID += c - 1
		}
	}
	fmt.Printf("recipients: %d of %d got the mail; lost %d; unexpected recipients %d; mails without Message-ID %d\n",
		len(byTo)-unexpected, len(emails), lost, unexpected, noID)
	fmt.Printf("duplicates: %d by recipient, %d by Message-ID (the same mail again: accepted before the kill, its row not yet marked sent), %d with another Message-ID\n",
		dupTo, dupID, dupOtherID)
	shown := 0
	for _, d := range got {
		if byTo[d.To] > 1 && shown < 12 {
			shown++
			fmt.Printf("  %s %s from %s at %s\n", d.To, d.MessageID, insts[d.Instance].Name, at(d.At))
		}
	}
	p := res.Progress
	fmt.Printf("progress: status %s, sent %d, failed %d, skipped %d, total %d\n", p.Status, p.Sent, p.Failed, p.Skipped, p.Total)

	ok := lost == 0 && unexpected == 0 && noID == 0 && dupOtherID == 0 &&
		p.Sent == len(emails) && p.Total == len(emails) && p.Failed == 0 && p.Skipped == 0
	if o.killAt == 0 && dupTo > 0 {
		ok = false // without a crash nothing may be sent twice
	}
	if ok {
		fmt.Println("result: PASS (none lost; every duplicate, if any, carries the same Message-ID)")
	} else {
		fmt.Println("result: FAIL")
	}
	return ok
}
