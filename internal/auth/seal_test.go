package auth

import "testing"

// Ensure sealers of different labels have different keys under one instance secret: a settings
// secret does not open as a TOTP secret, nor the reverse.
func TestSealerLabelsSeparateKeys(t *testing.T) {
	a, err := NewSealer("folio settings secrets v1", "one instance secret")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSealer(totpKeyInfo, "one instance secret")
	sealed := a.Seal("mail.smtp.password", "hunter2")
	if got, current, err := a.Open("mail.smtp.password", sealed); err != nil || got != "hunter2" || !current {
		t.Fatalf("Open = %q, %v, %v", got, current, err)
	}
	if _, _, err := b.Open("mail.smtp.password", sealed); err != ErrUnsealable {
		t.Errorf("another label's sealer opened it: %v", err)
	}
	if _, _, err := a.Open("mail.smtp.username", sealed); err != ErrUnsealable {
		t.Errorf("it opened for another field: %v", err)
	}
	if _, _, err := a.Open("mail.smtp.password", "hunter2"); err != ErrUnsealable {
		t.Errorf("a plaintext value opened: %v", err)
	}
}
