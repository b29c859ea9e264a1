package fediverse

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-fed/httpsig"
)

// SignedHeaders are the parts every signature covers, outgoing and incoming: what Mastodon
// signs and requires (draft-cavage-12).
var SignedHeaders = []string{httpsig.RequestTarget, "host", "date", "digest"}

// MaxClockSkew is how far a request's Date may be from our clock: older requests are replays.
const MaxClockSkew = 5 * time.Minute

// ErrSignature is wrapped by every refusal of an incoming request's signature (answered 401).
var ErrSignature = errors.New("fediverse: request signature refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSignature, fmt.Sprintf(format, args...))
}

// Sign signs an outgoing POST of body as Mastodon verifies it: Date, Digest (SHA-256) and a
// Signature over SignedHeaders with rsa-sha256 under keyID. A GET (body nil) is signed over
// (request-target) host date: servers in Mastodon's secure mode answer only signed fetches.
func Sign(req *http.Request, body []byte, key *rsa.PrivateKey, keyID string, now time.Time) error {
	req.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	headers := SignedHeaders
	if body == nil {
		headers = SignedHeaders[:3]
	}
	// A Signer keeps state between calls: one per request.
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		headers, httpsig.Signature, 0)
	if err != nil {
		return err
	}
	if err := signer.SignRequest(key, keyID, req, body); err != nil {
		return err
	}
	// go-fed names the algorithm hs2019 (the draft's recommendation, whose verifier learns it
	// from the key); state rsa-sha256, as Mastodon does, for verifiers that read the name. The
	// parameter is not itself signed.
	req.Header.Set("Signature", strings.Replace(req.Header.Get("Signature"), `algorithm="hs2019"`, `algorithm="rsa-sha256"`, 1))
	return nil
}

// ParseDigest reads a Digest header (RFC 3230: comma-separated algorithm=base64 pairs) and
// returns the SHA-256 value, decoded; ok is false when there is none or it is malformed.
func ParseDigest(h string) (sum []byte, ok bool) {
	for part := range strings.SplitSeq(h, ",") {
		alg, val, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found || !strings.EqualFold(alg, "SHA-256") {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(val))
		if err != nil || len(b) != sha256.Size {
			return nil, false
		}
		return b, true
	}
	return nil, false
}

// SignatureParams are the fields of a Signature header (draft-cavage-12 §2.1) we decide on
// before the signature itself is checked.
type SignatureParams struct {
	KeyID, Algorithm string
	Headers          []string
}

// ParseSignature reads a Signature header: comma-separated name="value" pairs. Unknown
// parameters are ignored; a repeated one, an unquoted value or a missing keyId, headers or
// signature is an error.
func ParseSignature(h string) (SignatureParams, error) {
	var p SignatureParams
	seen := map[string]bool{}
	rest := strings.TrimSpace(h)
	for rest != "" {
		name, after, ok := strings.Cut(rest, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !ok || name == "" || !strings.HasPrefix(after, `"`) {
			return p, errors.New("malformed Signature parameter")
		}
		end := strings.IndexByte(after[1:], '"')
		if end < 0 {
			return p, errors.New("unterminated Signature parameter")
		}
		val := after[1 : 1+end]
		rest = strings.TrimSpace(after[2+end:])
		if rest != "" {
			if rest[0] != ',' {
				return p, errors.New("malformed Signature header")
			}
			rest = strings.TrimSpace(rest[1:])
		}
		if seen[name] {
			return p, fmt.Errorf("repeated Signature parameter %q", name)
		}
		seen[name] = true
		switch name {
		case "keyid":
			p.KeyID = val
		case "algorithm":
			p.Algorithm = val
		case "headers":
			p.Headers = strings.Fields(strings.ToLower(val))
		}
	}
	if p.KeyID == "" || !seen["signature"] {
		return p, errors.New("the Signature header lacks keyId or signature")
	}
	if !seen["headers"] {
		p.Headers = []string{"date"} // the draft's default
	}
	return p, nil
}

// checkRequest makes the checks of an incoming request that need no key: a Date within
// MaxClockSkew of now, a Digest matching body, a Signature covering SignedHeaders with an RSA
// algorithm. It returns the signature's parameters.
func checkRequest(r *http.Request, body []byte, now time.Time) (SignatureParams, error) {
	sigHeader := r.Header.Get("Signature")
	if sigHeader == "" {
		return SignatureParams{}, refuse("the request is not signed")
	}
	p, err := ParseSignature(sigHeader)
	if err != nil {
		return p, refuse("%s", err)
	}
	for _, h := range SignedHeaders {
		if !slices.Contains(p.Headers, h) {
			return p, refuse("the signature does not cover %s", h)
		}
	}
	if a := strings.ToLower(p.Algorithm); a != "" && a != "rsa-sha256" && a != "hs2019" {
		return p, refuse("unsupported signature algorithm %q", p.Algorithm)
	}
	date, err := http.ParseTime(r.Header.Get("Date"))
	if err != nil {
		return p, refuse("the Date header is missing or malformed")
	}
	if d := now.Sub(date); d > MaxClockSkew || d < -MaxClockSkew {
		return p, refuse("the Date header is more than %s from our clock", MaxClockSkew)
	}
	want, ok := ParseDigest(r.Header.Get("Digest"))
	got := sha256.Sum256(body)
	if !ok || subtle.ConstantTimeCompare(want, got[:]) != 1 {
		return p, refuse("the Digest header does not match the body")
	}
	return p, nil
}

// verifyWith checks r's signature against pub with go-fed/httpsig.
func verifyWith(r *http.Request, pub *rsa.PublicKey) error {
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return refuse("%s", err)
	}
	if err := v.Verify(pub, httpsig.RSA_SHA256); err != nil {
		return refuse("the signature does not verify")
	}
	return nil
}
