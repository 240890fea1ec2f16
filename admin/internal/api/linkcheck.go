package api

import (
	"context"
	"reflect"
	"strings"

	"kurz/shared/link"
)

// LinkErrors checks each field of in on its own, with the checks AddLink
// (adding) or UpdateLink runs, and returns every refusal in the order of
// the payload's fields. The API answers the first refusal only; a form
// marks all its wrong fields at once with this. It writes nothing and
// hashes no password (a password is only measured).
func (s *Server) LinkErrors(ctx context.Context, u *link.User, in *LinkInput, adding bool) []error {
	var errs []error
	if adding && (in.URL == nil || strings.TrimSpace(*in.URL) == "") {
		errs = append(errs, BadRequest("url", "required"))
	}
	v := reflect.ValueOf(in).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() || v.Type().Field(i).Name == "Dedupe" {
			continue
		}
		one := &LinkInput{}
		reflect.ValueOf(one).Elem().Field(i).Set(f)
		if _, err := s.checkLink(ctx, u.ID, one, adding); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
