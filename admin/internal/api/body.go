package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// MaxBody caps request bodies; the largest legitimate one is a QR logo as a
// 1 MiB data: URI (≈1.4 MB of base64).
const MaxBody = 2 << 20

// Decode reads a request body into dst. The body must fit MaxBody and be
// one well-formed JSON object whose fields have the right types; errors
// name the field where one is known.
//
// Existing clients of this API do not all label their bodies: many send
// JSON as application/x-www-form-urlencoded, as text/plain or with no
// Content-Type at all, and some send real forms. So a body that is a JSON
// object is JSON whatever its label, and a form body (urlencoded or
// multipart) is read for dst's flat fields. Only a body that is neither is
// a 415. API keys never travel in cookies, so accepting "simple" content
// types opens no cross-site request path.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return decodeMultipart(w, r, params["boundary"], dst)
	}
	raw, err := readBody(w, r)
	if err != nil {
		return decodeError(err)
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(trimmed) == 0 || isJSONType(mt) || startsJSON(trimmed, dst):
		return decodeJSON(raw, dst) // an empty body gets the JSON "body is empty" error
	case mt == "application/x-www-form-urlencoded" || (mt == "" && bytes.IndexByte(trimmed, '=') > 0):
		return decodeForm(string(raw), dst)
	}
	return Errorf(http.StatusUnsupportedMediaType,
		"request body must be a JSON object (Content-Type: application/json) or a form (application/x-www-form-urlencoded)")
}

// readBody reads the whole body, at most MaxBody bytes. A declared
// length is read into one buffer of that size: io.ReadAll would grow its
// buffer step by step and allocate about twice the body.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	n := r.ContentLength
	if n < 0 || n > MaxBody {
		return io.ReadAll(body)
	}
	// net/http ends the body after the declared length.
	raw := make([]byte, n)
	if _, err := io.ReadFull(body, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// isJSONType accepts application/json and the structured-suffix types
// (application/problem+json and the like).
func isJSONType(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// startsJSON reports whether an unlabelled or mislabelled body is JSON: an
// object, or an array where dst takes raw JSON (the price push).
func startsJSON(b []byte, dst any) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '{' {
		return true
	}
	_, raw := dst.(*json.RawMessage)
	return raw && b[0] == '['
}

func decodeJSON(raw []byte, dst any) error {
	if json.Valid(raw) {
		// Unmarshal decodes in place; a Decoder would first copy the body
		// into a buffer of its own, growing it step by step.
		if err := json.Unmarshal(raw, dst); err != nil {
			return decodeError(err)
		}
		return nil
	}
	// Malformed, or more than one value: the decoder says which.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Errorf(http.StatusBadRequest, "request body must hold a single JSON object")
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	var apiErr *Error
	switch {
	case errors.As(err, &apiErr): // a field's own decoder (jsonlist.go) named the field
		return apiErr
	case errors.As(err, &tooBig):
		return Errorf(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", MaxBody)
	case errors.Is(err, io.EOF):
		return Errorf(http.StatusBadRequest, "request body is empty; send a JSON object")
	case errors.As(err, &syntax):
		return Errorf(http.StatusBadRequest, "malformed JSON at byte %d", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(http.StatusBadRequest, "malformed JSON: unexpected end of body")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return Errorf(http.StatusBadRequest, "request body must be a JSON object")
		}
		return BadRequest(typeErr.Field, fmt.Sprintf("must be %s, not %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	}
	return Errorf(http.StatusBadRequest, "invalid JSON body: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "of another type"
}
