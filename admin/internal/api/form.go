package api

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Form bodies: scripts and the original service's PHP clients post
// application/x-www-form-urlencoded or multipart/form-data. Their flat
// fields are turned into the JSON object the handler expects and decoded
// by the same JSON path, so every rule and message stays the one of the
// JSON API. Field names match case-insensitively, as JSON keys do. Arrays
// of scalars may come as repeated keys or "key[]"; arrays of objects and
// objects must be sent as JSON.

// maxFormKeys bounds the fields (and multipart parts) a form may carry.
const maxFormKeys = 200

var errTooManyFields = Errorf(http.StatusBadRequest, "form body: at most %d fields", maxFormKeys)

// decodeForm decodes an urlencoded body into dst.
func decodeForm(body string, dst any) error {
	if strings.Count(body, "&") >= maxFormKeys { // before parsing: the count bounds the work
		return errTooManyFields
	}
	vals, err := url.ParseQuery(body)
	if err != nil {
		return Errorf(http.StatusBadRequest, "malformed form body: %s", strings.TrimPrefix(err.Error(), "invalid URL escape "))
	}
	return formInto(vals, dst)
}

// decodeMultipart decodes a multipart/form-data body's text fields into
// dst. A file part is refused when its header arrives, before its content
// is read: no field takes a file.
func decodeMultipart(w http.ResponseWriter, r *http.Request, boundary string, dst any) error {
	if boundary == "" {
		return Errorf(http.StatusBadRequest, "malformed multipart body: no boundary")
	}
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, MaxBody), boundary)
	vals := url.Values{}
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return multipartError(err)
		}
		if n >= maxFormKeys {
			return errTooManyFields
		}
		name := part.FormName()
		if part.FileName() != "" {
			return BadRequest(name, "file uploads are not accepted; send a URL or a data: URI as text")
		}
		v, err := io.ReadAll(part) // bounded by MaxBytesReader
		if err != nil {
			return multipartError(err)
		}
		vals.Add(name, string(v))
	}
	return formInto(vals, dst)
}

func multipartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return Errorf(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", MaxBody)
	}
	return Errorf(http.StatusBadRequest, "malformed multipart body")
}

// formInto converts vals into a JSON object shaped by dst's json fields
// and decodes it into dst.
func formInto(vals url.Values, dst any) error {
	fields, ok := jsonFields(dst)
	if !ok {
		return Errorf(http.StatusUnsupportedMediaType, "this endpoint takes a JSON body (Content-Type: application/json)")
	}
	if len(vals) > maxFormKeys {
		return errTooManyFields
	}
	grouped := groupFields(vals, fields)
	names := make([]string, 0, len(grouped))
	for name := range grouped {
		names = append(names, name)
	}
	sort.Strings(names) // the same input always yields the same first error
	obj := make(map[string]any, len(grouped))
	for _, name := range names {
		v, err := formValue(name, fields[name], grouped[name])
		if err != nil {
			return err
		}
		if v != nil {
			obj[name] = v
		}
	}
	raw, err := json.Marshal(obj)
	if err != nil { // unreachable: formValue writes only valid numbers
		return Errorf(http.StatusBadRequest, "form body: %v", err)
	}
	return decodeJSON(raw, dst)
}

// groupFields gathers the values of each of dst's fields: "key" and
// "key[]" in any letter case name the same field; unknown keys are
// ignored, as in JSON bodies. Values keep their order within a key; keys
// are taken in sorted order.
func groupFields(vals url.Values, fields map[string]reflect.Type) map[string][]string {
	lower := make(map[string]string, len(fields))
	for name := range fields {
		lower[strings.ToLower(name)] = name
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string][]string, len(vals))
	for _, key := range keys {
		name, known := lower[strings.ToLower(strings.TrimSuffix(key, "[]"))]
		if known {
			out[name] = append(out[name], vals[key]...)
		}
	}
	return out
}

// jsonFields maps dst's JSON field names to their types, pointers
// removed. ok is false when dst is not a pointer to a struct.
func jsonFields(dst any) (map[string]reflect.Type, bool) {
	t := reflect.TypeOf(dst)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	t = t.Elem()
	out := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out[name] = ft
	}
	return out, true
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// formValue converts a field's form values to the JSON value its type
// takes. A value that does not convert is passed on as a string, so the
// JSON decoder reports the usual "must be …" error. An empty value of a
// number or boolean field means "not sent" (forms cannot send null).
func formValue(name string, t reflect.Type, vs []string) (any, error) {
	if t == rawMessageType {
		return single(name, vs)
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if !isScalar(elem.Kind()) {
			return nil, BadRequest(name, "send lists of objects as JSON (Content-Type: application/json)")
		}
		out := make([]any, 0, len(vs))
		for _, v := range vs {
			if v == "" && len(vs) == 1 {
				break // "pixels=" sends an empty list
			}
			out = append(out, scalar(elem.Kind(), v))
		}
		return out, nil
	case reflect.Struct, reflect.Map:
		return nil, BadRequest(name, "send objects as JSON (Content-Type: application/json)")
	}
	v, err := single(name, vs)
	if err != nil {
		return nil, err
	}
	if t.Kind() != reflect.String && v == "" {
		return nil, nil
	}
	return scalar(t.Kind(), v), nil
}

func single(name string, vs []string) (string, error) {
	if len(vs) != 1 {
		return "", BadRequest(name, "sent more than once")
	}
	return vs[0], nil
}

func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// scalar converts one form value for a field of kind k. Numbers are
// written back in canonical form ("007" is 7): JSON has no leading zeros.
func scalar(k reflect.Kind, v string) any {
	switch k {
	case reflect.Bool:
		switch strings.ToLower(v) {
		case "true", "1", "on", "yes":
			return true
		case "false", "0", "off", "no":
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10))
		}
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && !strings.Contains(v, "_") {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return v
}
