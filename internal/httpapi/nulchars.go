package httpapi

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// NUL characters (U+0000) in text (and, in URLs, bytes that are not UTF-8) are refused at the edge, the same way on both engines:
// PostgreSQL cannot store them in text columns (every such write or lookup failed with a 500
// there), and no field of folio has a use for them. JSON carries them only as the escape
// \u0000; a URL only as %00.

// refuseNULInURL answers 400 when the path or a query parameter carries %00 or bytes that are
// not UTF-8 (%FF): PostgreSQL refuses both in text parameters, which used to surface as 500.
func refuseNULInURL(r *http.Request) error {
	if !cleanText(r.URL.Path) {
		return folio.BadRequest("", "The path must be UTF-8 text without NUL characters (%%00).")
	}
	raw := r.URL.RawQuery
	if !strings.Contains(raw, "%") && isASCII(raw) {
		return nil // nothing encoded: the common case costs one scan
	}
	for name, values := range r.URL.Query() {
		if !cleanText(name) {
			return folio.BadRequest("", "Query parameter names must be UTF-8 text without NUL characters (%%00).")
		}
		for _, v := range values {
			if !cleanText(v) {
				return folio.BadRequest(name, "must be UTF-8 text without NUL characters (%%00)")
			}
		}
	}
	return nil
}

func cleanText(s string) bool { return utf8.ValidString(s) && !strings.Contains(s, "\x00") }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// refuseNULInBody answers 422 naming the first decoded string field of v that holds a NUL.
func refuseNULInBody(v any) error {
	if field, ok := findNUL(reflect.ValueOf(v), ""); ok {
		var val folio.Validation
		val.Invalid(field, "must not contain NUL characters (\\u0000)")
		return val.Err()
	}
	return nil
}

func findNUL(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return path, strings.Contains(v.String(), "\x00")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return findNUL(v.Elem(), path)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if f.Anonymous && f.Tag.Get("json") == "" {
				p = path // embedded: its fields sit at this level
			} else if path != "" {
				p = path + "." + name
			}
			if field, ok := findNUL(v.Field(i), p); ok {
				return field, true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // raw bytes (json.RawMessage) are not text
		}
		for i := 0; i < v.Len(); i++ {
			if field, ok := findNUL(v.Index(i), path+"["+strconv.Itoa(i)+"]"); ok {
				return field, true
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			key := ""
			if k.Kind() == reflect.String {
				key = k.String()
			}
			p := key
			if path != "" {
				p = path + "." + key
			}
			if strings.Contains(key, "\x00") {
				return path, true
			}
			if field, ok := findNUL(iter.Value(), p); ok {
				return field, true
			}
		}
	}
	return "", false
}
