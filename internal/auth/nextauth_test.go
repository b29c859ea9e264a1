package auth

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// nextAuthDir holds package.json/package-lock.json pinning next-auth v4; node_modules is
// installed there by `npm ci` (not committed).
const nextAuthDir = "testdata/nextauth"

// runNextAuth sends one request to testdata/nextauth/compat.js, which calls the real
// next-auth/jwt encode or decode, and decodes its JSON answer into out.
func runNextAuth(t *testing.T, req map[string]any, out any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; install Node.js ≥ 18 to run the next-auth compatibility test")
	}
	if _, err := os.Stat(filepath.Join(nextAuthDir, "node_modules", "next-auth", "jwt")); err != nil {
		t.Skip("next-auth is not installed; run: npm ci --prefix internal/auth/testdata/nextauth --legacy-peer-deps --no-audit --no-fund")
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "compat.js")
	cmd.Dir = nextAuthDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node compat.js: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("node compat.js answer %q: %v", stdout, err)
	}
}

// TestNextAuthCompatibility proves folio and next-auth v4 read each other's session tokens,
// both ways, and agree on which tokens to refuse.
func TestNextAuthCompatibility(t *testing.T) {
	t.Parallel()

	t.Run("next-auth encodes, folio decodes", func(t *testing.T) {
		t.Parallel()
		var got struct {
			Token string `json:"token"`
			Error string `json:"error"`
		}
		runNextAuth(t, map[string]any{"op": "encode", "secret": testSecret, "maxAge": 3600, "token": map[string]any{
			"name": "Ada Lovelace", "email": "ada@example.com", "picture": "https://example.com/ada.png",
			"sub": "user-1", "role": "editor",
		}}, &got)
		if got.Error != "" {
			t.Fatalf("next-auth encode: %s", got.Error)
		}
		now := time.Now()
		c, err := DecodeSession(testSecret, got.Token, now)
		if err != nil {
			t.Fatalf("DecodeSession(next-auth token): %v", err)
		}
		if c.Name != "Ada Lovelace" || c.Email != "ada@example.com" || c.Picture != "https://example.com/ada.png" ||
			c.Sub != "user-1" || c.Role != "editor" || c.Jti == "" {
			t.Errorf("claims = %+v", c)
		}
		if c.Exp-c.Iat != 3600 {
			t.Errorf("exp - iat = %d, want next-auth's maxAge 3600", c.Exp-c.Iat)
		}
		if _, err := DecodeSession(testSecret+"!", got.Token, now); err == nil {
			t.Error("next-auth token accepted under another secret")
		}
		if _, err := DecodeSession(testSecret, got.Token, time.Unix(c.Exp, 0).Add(time.Minute)); err == nil {
			t.Error("expired next-auth token accepted")
		}
	})

	t.Run("folio encodes, next-auth decodes", func(t *testing.T) {
		t.Parallel()
		now := time.Now()
		in := SessionClaims{Name: "Grace Hopper", Email: "grace@example.com", Sub: "user-2", Role: "owner",
			Iat: now.Unix(), Exp: now.Add(time.Hour).Unix()}
		tok := mustEncode(t, testSecret, in)
		var got struct {
			Payload *SessionClaims `json:"payload"`
			Error   string         `json:"error"`
		}
		runNextAuth(t, map[string]any{"op": "decode", "secret": testSecret, "token": tok}, &got)
		if got.Error != "" || got.Payload == nil {
			t.Fatalf("next-auth decode of a folio token: error %q", got.Error)
		}
		if got.Payload.Jti == "" {
			t.Error("next-auth sees no jti")
		}
		in.Jti = got.Payload.Jti
		if *got.Payload != in {
			t.Errorf("next-auth decoded\n %+v\nwant %+v", *got.Payload, in)
		}
	})

	t.Run("next-auth refuses what folio refuses", func(t *testing.T) {
		t.Parallel()
		now := time.Now()
		expired := mustEncode(t, testSecret, SessionClaims{Sub: "u", Iat: now.Add(-2 * time.Hour).Unix(),
			Exp: now.Add(-time.Hour).Unix()})
		valid := mustEncode(t, testSecret, SessionClaims{Sub: "u", Iat: now.Unix(), Exp: now.Add(time.Hour).Unix()})
		for name, req := range map[string]map[string]any{
			"expired":      {"op": "decode", "secret": testSecret, "token": expired},
			"other secret": {"op": "decode", "secret": "not-" + testSecret, "token": valid},
		} {
			var got struct {
				Error string `json:"error"`
			}
			runNextAuth(t, req, &got)
			if got.Error == "" {
				t.Errorf("%s: next-auth accepted the token", name)
			}
		}
	})
}
