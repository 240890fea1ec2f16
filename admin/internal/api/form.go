package api

import (
	"encoding/json"
	"errors"
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
// JSON API. Arrays of scalars may come as repeated keys or "key[]";
// arrays of objects and objects must be sent as JSON.

// maxFormKeys bounds the work a form can cause.
const maxFormKeys = 200

// decodeForm decodes an urlencoded body into dst.
func decodeForm(body string, dst any) error {
	vals, err := url.ParseQuery(body)
	if err != nil {
		return Errorf(http.StatusBadRequest, "malformed form body: %s", strings.TrimPrefix(err.Error(), "invalid URL escape "))
	}
	return formInto(vals, dst)
}

// decodeMultipart decodes a multipart/form-data body's text fields into
// dst; file parts are refused (no field takes a file).
func decodeMultipart(w http.ResponseWriter, r *http.Request, boundary string, dst any) error {
	if boundary == "" {
		return Errorf(http.StatusBadRequest, "malformed multipart body: no boundary")
	}
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, MaxBody), boundary)
	form, err := mr.ReadForm(MaxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, multipart.ErrMessageTooLarge) {
			return Errorf(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", MaxBody)
		}
		return Errorf(http.StatusBadRequest, "malformed multipart body")
	}
	defer form.RemoveAll()
	for name := range form.File {
		return BadRequest(name, "file uploads are not accepted; send a URL or a data: URI as text")
	}
	return formInto(url.Values(form.Value), dst)
}

// formInto converts vals into a JSON object shaped by dst's json fields
// and decodes it into dst.
func formInto(vals url.Values, dst any) error {
	fields, ok := jsonFields(dst)
	if !ok {
		return Errorf(http.StatusUnsupportedMediaType, "this endpoint takes a JSON body (Content-Type: application/json)")
	}
	if len(vals) > maxFormKeys {
		return Errorf(http.StatusBadRequest, "form body: at most %d fields", maxFormKeys)
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same input always yields the same first error
	obj := make(map[string]any, len(vals))
	for _, key := range keys {
		name := strings.TrimSuffix(key, "[]")
		t, known := fields[name]
		if !known {
			continue // unknown keys are ignored, as in JSON bodies
		}
		v, err := formValue(name, t, vals[key])
		if err != nil {
			return err
		}
		if v != nil {
			obj[name] = v
		}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return decodeJSON(raw, dst)
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

// scalar converts one form value for a field of kind k.
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
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return json.Number(v)
		}
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(v)
		}
	}
	return v
}
