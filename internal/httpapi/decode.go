package httpapi

import (
	"encoding/json"
	"errors"

	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
)

// maxJSONBody is the limit of JSON request bodies (docs/api.md, "Conventions").
const maxJSONBody = 1 << 20

// decodeJSON reads the request body as JSON into v. Bodies over 1 MiB are 413; a body that is not
// JSON, or a field of the wrong type, is 400 naming the field; unknown fields are ignored. The
// Content-Type is not enforced (curl's -d sends a form type with a JSON body), but when the body
// does not parse, the message says what type was sent.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, maxJSONBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		err = jsonError(err)
		if fe, ok := err.(*folio.Error); ok && fe.Code == folio.EINVALID && len(fe.Details) == 0 {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
				fe.Message += " (Content-Type was " + mt + "; send application/json.)"
			}
		}
		return err
	}
	// Anything after the value other than white space is a malformed body.
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return jsonError(err)
		}
		return folio.BadRequest("", "The request body must hold exactly one JSON value.")
	}
	return refuseNULInBody(v)
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &mbe):
		return folio.Errorf(folio.ETOOLARGE, "The request body is larger than %d bytes.", mbe.Limit)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return folio.BadRequest("", "The request body must be a JSON object.")
		}
		return folio.BadRequest(field, "must be of type %s", jsonTypeName(te.Type.Kind().String()))
	case errors.As(err, &se):
		return folio.BadRequest("", "The request body is not valid JSON (at byte %d).", se.Offset)
	case errors.Is(err, io.EOF):
		return folio.BadRequest("", "The request body is empty; a JSON object is required.")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return folio.BadRequest("", "The request body is truncated JSON.")
	default:
		return folio.BadRequest("", "The request body could not be read as JSON.")
	}
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr":
		return "object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	}
	return kind
}

// boolQuery reads the boolean query parameter name: false when absent, a 400 naming it when not
// a boolean (strconv.ParseBool: true, false, 1, 0…).
func boolQuery(q url.Values, name string) (bool, error) {
	if !q.Has(name) {
		return false, nil
	}
	b, err := strconv.ParseBool(q.Get(name))
	if err != nil {
		return false, folio.BadRequest(name, "must be true or false")
	}
	return b, nil
}

// pageParams reads page (≥ 1, default 1) and limit (1..100, default 10) from the query; anything
// else is a 400 (docs/api.md, Conventions).
func pageParams(r *http.Request) (page, limit int, err error) {
	return pageValues(r.URL.Query())
}

// pageValues is pageParams over parsed query values.
func pageValues(q url.Values) (page, limit int, err error) {
	page, limit = 1, 10
	if v := q.Get("page"); v != "" || q.Has("page") {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 {
			return 0, 0, folio.BadRequest("page", "must be a whole number of at least 1")
		}
		page = n
	}
	if v := q.Get("limit"); v != "" || q.Has("limit") {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 || n > 100 {
			return 0, 0, folio.BadRequest("limit", "must be a whole number from 1 to 100")
		}
		limit = n
	}
	if page > 1_000_000 {
		return 0, 0, folio.BadRequest("page", "is too large")
	}
	return page, limit, nil
}
