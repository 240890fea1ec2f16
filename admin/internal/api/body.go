package api

import (
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

// Decode reads a JSON body into dst: the content type must be JSON, the
// body must fit MaxBody and be one well-formed JSON object whose fields have
// the right types. Errors name the field where one is known.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return Errorf(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	}
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return decodeError(err)
		}
		return Errorf(http.StatusBadRequest, "request body must hold a single JSON object")
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
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
