package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// docCheck sends requests to a running admin and validates each request
// and its real response against openapi.json with openapi3filter. It
// remembers which statuses each operation answered, so a test can demand
// that every operation was seen succeeding and failing.
type docCheck struct {
	t      *testing.T
	e      *testEnv
	doc    *openapi3.T
	router routers.Router
	seen   map[string]map[int]bool // operationId -> statuses answered
}

func newDocCheck(t *testing.T, e *testEnv) *docCheck {
	t.Helper()
	doc := loadOpenAPI(t)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router from openapi.json: %v", err)
	}
	return &docCheck{t: t, e: e, doc: doc, router: router, seen: map[string]map[int]bool{}}
}

// call is one request of a check and what it must answer.
type call struct {
	method, path string
	key          string // "" sends no Authorization header
	auth         string // a whole Authorization value (overrides key)
	// body is nil, a string (sent as is), url.Values (a urlencoded form),
	// multipartForm, or a value sent as JSON.
	body   any
	ctype  string // Content-Type; "" picks the body's own
	origin string // an Origin header
	status int
	// invalid: the request breaks the document on purpose (bad input the
	// schema describes, no key), so the validator must refuse it too.
	invalid bool
}

// multipartForm is a body sent as multipart/form-data.
type multipartForm map[string]string

// encode returns the raw body and its Content-Type.
func (c call) encode(t *testing.T) ([]byte, string) {
	t.Helper()
	switch b := c.body.(type) {
	case nil:
		return nil, ""
	case string:
		return []byte(b), "application/json"
	case url.Values:
		return []byte(b.Encode()), "application/x-www-form-urlencoded"
	case multipartForm:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		names := make([]string, 0, len(b))
		for k := range b {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if err := w.WriteField(k, b[k]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), w.FormDataContentType()
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		return raw, "application/json"
	}
}

func (c call) request(t *testing.T, base string) (*http.Request, []byte) {
	t.Helper()
	raw, ctype := c.encode(t)
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.ctype != "" {
		ctype = c.ctype
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	switch {
	case c.auth != "":
		req.Header.Set("Authorization", c.auth)
	case c.key != "":
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	return req, raw
}

// do sends c, checks its status and validates request and response.
func (d *docCheck) do(c call) response {
	t := d.t
	t.Helper()
	req, raw := c.request(t, d.e.http.URL)
	route, params, err := d.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: no operation of openapi.json matches: %v", c.method, c.path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: checkAuth}}
	switch err := openapi3filter.ValidateRequest(context.Background(), in); {
	case c.invalid && err == nil:
		t.Errorf("%s %s: the document accepts a request this test sends as invalid", c.method, c.path)
	case !c.invalid && err != nil:
		t.Errorf("%s %s: request does not match openapi.json: %s", c.method, c.path, shortErr(err))
	}
	req.Body = io.NopCloser(bytes.NewReader(raw)) // validation read it
	res := d.e.send(req)
	if res.Status != c.status {
		t.Errorf("%s %s: status %d, want %d; body %s", c.method, c.path, res.Status, c.status, res.Raw)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Status, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(res.Raw)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: the %d response does not match openapi.json: %s\nbody: %s", c.method, c.path, res.Status, shortErr(err), clipBody(res.Raw))
	}
	op := route.Operation.OperationID
	if d.seen[op] == nil {
		d.seen[op] = map[int]bool{}
	}
	d.seen[op][res.Status] = true
	return res
}

// id is the "id" of a create response.
func (d *docCheck) id(r response) int64 {
	d.t.Helper()
	f, ok := r.Body["id"].(float64)
	if !ok {
		d.t.Fatalf("no id in %s", r.Raw)
	}
	return int64(f)
}

// shortErr drops the schema dumps of kin-openapi's errors: each line
// that starts a schema or a value listing ends the message.
func shortErr(err error) string {
	var keep []string
	skip := false
	for _, line := range strings.Split(err.Error(), "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "Schema:" || trimmed == "Value:":
			skip = true
		case skip && (strings.HasPrefix(line, " ") || trimmed == ""):
		default:
			skip = false
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func clipBody(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// checkAuth is the security check of the validator: the key must be sent
// in the form the scheme describes (whether it is a valid key is the
// server's business).
func checkAuth(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
	r := ai.RequestValidationInput.Request
	fields := strings.Fields(r.Header.Get("Authorization"))
	switch ai.SecuritySchemeName {
	case "bearerAuth":
		if len(fields) == 2 && strings.EqualFold(fields[0], "Bearer") {
			return nil
		}
	case "tokenAuth":
		if len(fields) == 1 || len(fields) == 2 && strings.EqualFold(fields[0], "Token") {
			return nil
		}
	case "keyQuery":
		if r.URL.Query().Get("key") != "" {
			return nil
		}
	}
	return errors.New("no key in the form of " + ai.SecuritySchemeName)
}

// coverageGaps names every operation not seen succeeding, and every
// documented 400, 401, 404 and 409 of an operation not seen, unless
// exempt names it ("operationId status") with a reason.
func (d *docCheck) coverageGaps(exempt map[string]string) []string {
	var gaps []string
	for path, item := range d.doc.Paths.Map() {
		for method, op := range item.Operations() {
			seen := d.seen[op.OperationID]
			ok := false
			for st := range seen {
				ok = ok || st >= 200 && st < 300
			}
			if !ok {
				gaps = append(gaps, fmt.Sprintf("%s %s (%s): no success seen", method, path, op.OperationID))
			}
			for _, st := range []int{400, 401, 404, 409} {
				if op.Responses.Status(st) == nil || seen[st] {
					continue
				}
				if _, ok := exempt[op.OperationID+" "+strconv.Itoa(st)]; !ok {
					gaps = append(gaps, fmt.Sprintf("%s %s (%s): documented %d not seen", method, path, op.OperationID, st))
				}
			}
		}
	}
	slices.Sort(gaps)
	return gaps
}

// errorSchema validates a body against the Error schema, for answers of
// no operation (405, unknown routes).
func (d *docCheck) errorBody(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return d.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}
