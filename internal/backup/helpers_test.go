package backup_test

import (
	"net/http/httptest"
	"testing"

	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/blob"
)

const testSecret = "a test secret of at least thirty-two bytes"

func signer(t testing.TB, secret string) *backup.Signer {
	s, err := backup.NewSigner(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func serve(l *blob.Local, path string) int {
	rec := httptest.NewRecorder()
	l.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code
}
