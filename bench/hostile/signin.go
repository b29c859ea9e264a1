package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// signinBurst sends o.signins failed sign-ins from one client — half on the owner's account
// (the sign-in limit refuses them after five failures), half on made-up accounts — and counts the
// audit rows of auth.login they leave.
func signinBurst(s *server, o options) error {
	statuses := map[int]int{}
	start := time.Now()
	for i := range o.signins {
		email := ownerEmail
		if i >= o.signins/2 {
			email = fmt.Sprintf("guess%d@example.com", i)
		}
		body, _ := json.Marshal(map[string]string{"email": email, "password": "wrong password"})
		res, err := s.do("POST", "/api/auth/login", body, "Content-Type", "application/json")
		if err != nil {
			return err
		}
		res.Body.Close()
		statuses[res.StatusCode]++
	}
	elapsed := time.Since(start)
	time.Sleep(2 * time.Second) // the audit log is written in batches
	rows, refusedRows, refused := 0, 0, 0
	for p := 1; ; p++ {
		var page struct {
			Entries []struct {
				Status  int `json:"status"`
				Refused int `json:"refused"`
			} `json:"entries"`
			Total int `json:"total"`
		}
		res, err := s.admin("GET", fmt.Sprintf("/api/audit?action=auth.login&limit=100&page=%d", p), nil)
		if err != nil || res.StatusCode != 200 {
			return fmt.Errorf("audit: %v %v", err, status(res))
		}
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil {
			return err
		}
		for _, e := range page.Entries {
			rows++
			if e.Status == 429 {
				refusedRows++
				refused += max(e.Refused, 1)
			}
		}
		if len(page.Entries) == 0 || rows >= page.Total {
			break
		}
	}
	fmt.Printf("signin: %d failed sign-ins in %s (statuses %v) left %d auth.login audit rows (%d of them for %d refusals)\n",
		o.signins, elapsed.Round(time.Millisecond), statuses, rows, refusedRows, refused)
	return nil
}
