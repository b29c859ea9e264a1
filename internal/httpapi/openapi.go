package httpapi

import (
	_ "embed"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// The OpenAPI 3.1 document is generated from the route table and the Go types of request and
// response bodies, so it cannot drift from what the server does; a test checks real responses
// against it.

// docsAPI serves the OpenAPI document and the documentation page.
type docsAPI struct{ *Server }

func (s docsAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/openapi.json", Handle: s.openAPIHandler, Tag: "Meta",
			Summary: "This OpenAPI 3.1 document", Status: http.StatusOK, Resp: map[string]any{}},
		{Method: "GET", Pattern: "/api/docs", Handle: s.docsPage, Tag: "Meta",
			Summary: "Human-readable API documentation (works offline)", Status: http.StatusOK, RespType: "text/html"},
	}
}

func (s docsAPI) openAPIHandler(w http.ResponseWriter, r *http.Request) error {
	s.openapiOnce.Do(func() { s.openapiDoc = s.OpenAPI() })
	return writeJSON(w, http.StatusOK, s.openapiDoc)
}

//go:embed docs.html
var docsHTML []byte

func (s docsAPI) docsPage(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'")
	_, err := w.Write(docsHTML)
	return err
}

type schemaGen struct {
	components map[string]any
}

var timeType = reflect.TypeOf(time.Time{})

// schema returns the JSON Schema of t, registering named struct types as components.
func (g *schemaGen) schema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if m, ok := reflect.New(t).Interface().(interface{ JSONSchema() map[string]any }); ok {
		return m.JSONSchema()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := schemaName(t)
		if name != "" {
			if _, ok := g.components[name]; !ok {
				g.components[name] = map[string]any{} // placeholder against recursion
				g.components[name] = g.object(t)
			}
			return map[string]any{"$ref": "#/components/schemas/" + name}
		}
		return g.object(t)
	}
	return map[string]any{}
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if name == "" {
				name = f.Name
			}
			sch := g.schema(f.Type)
			if doc := f.Tag.Get("doc"); doc != "" {
				sch = withDescription(sch, doc)
			}
			if f.Tag.Get("nullable") == "true" {
				sch = map[string]any{"anyOf": []any{sch, map[string]any{"type": "null"}}}
			}
			props[name] = sch
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") && f.Type.Kind() != reflect.Pointer {
				required = append(required, name)
			}
		}
	}
	walk(t)
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		o["required"] = required
	}
	return o
}

func withDescription(s map[string]any, doc string) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"allOf": []any{s}, "description": doc}
	}
	c := make(map[string]any, len(s)+1)
	for k, v := range s {
		c[k] = v
	}
	c["description"] = doc
	return c
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]`)

func schemaName(t reflect.Type) string {
	if t.Name() == "" {
		return ""
	}
	n := t.Name()
	if strings.HasPrefix(n, "Time") && t.PkgPath() == "time" {
		return ""
	}
	n = nonWord.ReplaceAllString(n, "")
	return strings.ToUpper(n[:1]) + n[1:]
}

// OpenAPI returns the OpenAPI 3.1 document of every route.
func (s *Server) OpenAPI() map[string]any {
	g := &schemaGen{components: map[string]any{}}
	errRef := g.schema(reflect.TypeOf(errorBody{}))
	paths := map[string]any{}
	rateHeaders := map[string]any{
		"X-RateLimit-Limit":     map[string]any{"schema": map[string]any{"type": "integer"}, "description": "requests allowed in the window"},
		"X-RateLimit-Remaining": map[string]any{"schema": map[string]any{"type": "integer"}, "description": "requests left in the window"},
		"X-RateLimit-Reset":     map[string]any{"schema": map[string]any{"type": "integer"}, "description": "Unix epoch seconds at which the window frees a request"},
		"X-Request-Id":          map[string]any{"schema": map[string]any{"type": "string"}, "description": "request id, also in the server log"},
	}
	for _, rt := range s.routes {
		op := map[string]any{
			"summary":     rt.Summary,
			"tags":        []string{rt.Tag},
			"operationId": operationID(rt),
			"x-folio-access": map[string]any{
				"level": rt.Level.String(), "permission": string(rt.Perm), "limit": limitName(rt.Limit), "cached": rt.Cache != "",
			},
		}
		if rt.Level > folio.LevelPublic || rt.Perm != "" {
			op["security"] = []any{map[string]any{"bearerAuth": []string{}}, map[string]any{"sessionCookie": []string{}}}
		} else {
			op["security"] = []any{map[string]any{}}
		}
		var params []any
		for _, pn := range pathParams(rt.Pattern) {
			params = append(params, map[string]any{"name": pn, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range rt.Query {
			params = append(params, map[string]any{"name": q.Name, "in": "query", "required": q.Required, "description": q.Doc, "schema": map[string]any{"type": q.Type}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if rt.Body != nil || rt.BodyType != "" {
			ct := "application/json"
			bodySchema := map[string]any{}
			if rt.BodyType != "" {
				ct = rt.BodyType
			}
			if rt.Body != nil {
				bodySchema = g.schema(reflect.TypeOf(rt.Body))
			}
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{ct: map[string]any{"schema": bodySchema}}}
		}
		responses := map[string]any{}
		ok := map[string]any{"description": http.StatusText(rt.Status), "headers": rateHeaders}
		switch {
		case rt.RespType != "":
			ok["content"] = map[string]any{rt.RespType: map[string]any{"schema": map[string]any{"type": "string"}}}
		case rt.Resp != nil:
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.Resp))}}
		}
		responses[strconv.Itoa(rt.Status)] = ok
		// Any route may answer 503 while the database is unreachable.
		errs := append([]int{400, 429, 500, 503}, rt.Errors...)
		if rt.Level > folio.LevelPublic || rt.Perm != "" {
			errs = append(errs, 401, 403)
		}
		for _, code := range errs {
			sch := errRef
			if rt.ErrorResp != nil && code != 401 && code != 403 && code != 429 {
				sch = g.schema(reflect.TypeOf(rt.ErrorResp))
			}
			desc := http.StatusText(code)
			if code == http.StatusServiceUnavailable && rt.Needs != needNothing {
				desc = rt.Needs.doc()
			}
			responses[strconv.Itoa(code)] = map[string]any{"description": desc,
				"content": map[string]any{"application/json": map[string]any{"schema": sch}}}
		}
		op["responses"] = responses
		item, _ := paths[rt.Pattern].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.Pattern] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "folio API", "version": folio.Version,
			"description": "The folio portfolio backend. Errors use one envelope {error:{code,message,details,timestamp}}; " +
				"every /api response carries X-Request-Id and X-RateLimit-* headers. Access levels: public ⊂ read ⊂ write ⊂ admin " +
				"(see x-folio-access on each operation). A session acts at admin for an owner and write for an editor; " +
				"a key acts at its level, at most its user's. " + fmt.Sprintf("Rate limits per hour: public %d per client IP, "+
				"authenticated (read/write key, editor session) %d per credential, admin (admin key, owner session) %d; "+
				"helper limit %d per identifier on top of the tier where x-folio-access.limit says so; 429 carries retryAfter "+
				"and Retry-After.", s.Limits.Public, s.Limits.Authenticated, s.Limits.Admin, s.Limits.Helper)},
		"servers": []any{map[string]any{"url": s.siteURL()}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"securitySchemes": map[string]any{
				"bearerAuth":    map[string]any{"type": "http", "scheme": "bearer", "description": "API key created in Settings → API Keys or with `folio apikey create`"},
				"sessionCookie": map[string]any{"type": "apiKey", "in": "cookie", "name": "next-auth.session-token", "description": "NextAuth-compatible session from POST /api/auth/login"},
			},
		},
	}
}

func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.Method))
	for _, seg := range strings.Split(strings.Trim(rt.Pattern, "/"), "/") {
		if seg == "api" {
			continue
		}
		seg = strings.Trim(seg, "{}.")
		if seg == "" {
			continue
		}
		seg = nonWord.ReplaceAllString(seg, "")
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}

func pathParams(pattern string) []string {
	var out []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") {
			out = append(out, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return out
}

func limitName(c limitClass) string {
	switch c {
	case limitHelperIP:
		return "tier+helper per IP"
	case limitHelperKey:
		return "tier+helper per key"
	case limitExempt:
		return "exempt"
	case limitSignIn:
		return "tier+sign-in failures per account and client"
	}
	return "tier"
}
