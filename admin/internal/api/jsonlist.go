package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"kurz/shared/link"
	"kurz/shared/target"
)

// List fields of write bodies decode one entry at a time and stop at the
// first entry past their limit. Decoding a whole array before checking
// its length let a 2 MiB body of "[{},{},…]" grow to tens of MB of
// structs (700 000 entries) only to be refused afterwards; bounded, the
// same body costs its own size.

// Limits of the list fields; each is the rule the handler applies anyway.
const (
	maxTargets = target.MaxRules
	maxParams  = link.MaxParams
)

type (
	geoList    []link.GeoTarget
	deviceList []link.DeviceTarget
	langList   []link.LangTarget
	paramList  []link.Param
	pixelList  []int64
)

func (l *geoList) UnmarshalJSON(b []byte) error {
	return decodeList(b, (*[]link.GeoTarget)(l), "geotarget", maxTargets)
}

func (l *deviceList) UnmarshalJSON(b []byte) error {
	return decodeList(b, (*[]link.DeviceTarget)(l), "devicetarget", maxTargets)
}

func (l *langList) UnmarshalJSON(b []byte) error {
	return decodeList(b, (*[]link.LangTarget)(l), "languagetarget", maxTargets)
}

func (l *paramList) UnmarshalJSON(b []byte) error {
	return decodeList(b, (*[]link.Param)(l), "parameters", maxParams)
}

func (l *pixelList) UnmarshalJSON(b []byte) error {
	return decodeList(b, (*[]int64)(l), "pixels", MaxLinkPixels)
}

// decodeList decodes the JSON array b into dst entry by entry and refuses
// it with a 400 as soon as entry max+1 starts. b is the raw value the
// outer decoder already checked for syntax; null leaves dst alone (a
// pointer field sent as null never gets here).
func decodeList[T any](b []byte, dst *[]T, field string, max int) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return BadRequest(field, "must be an array")
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return BadRequest(field, "must be an array, not "+jsonValueKind(tok))
	}
	out := make([]T, 0, min(max, 16))
	for i := 0; dec.More(); i++ {
		if i == max {
			return BadRequest(field, fmt.Sprintf("at most %d entries", max))
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return entryError(field, i, err)
		}
		out = append(out, v)
	}
	*dst = out
	return nil
}

// jsonValueKind names the kind of the value that starts with tok, in the
// words encoding/json uses for type errors.
func jsonValueKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64, json.Number:
		return "number"
	}
	return "null"
}

// entryError names the entry (and its field) an entry's decode error is
// about: "parameters[0].name: must be a string, not number".
func entryError(field string, i int, err error) error {
	path := field + "[" + strconv.Itoa(i) + "]"
	var typeErr *json.UnmarshalTypeError
	var apiErr *Error
	switch {
	case errors.As(err, &apiErr):
		return apiErr
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			path += "." + typeErr.Field
		}
		return BadRequest(path, fmt.Sprintf("must be %s, not %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(http.StatusBadRequest, "malformed JSON: unexpected end of body")
	}
	return BadRequest(path, "invalid value")
}
