package backup_test

import (
	"net/http/httptest"

	"github.com/foliohq/folio/internal/blob"
)

func serve(l *blob.Local, path string) int {
	rec := httptest.NewRecorder()
	l.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code
}
