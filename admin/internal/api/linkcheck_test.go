package api

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// LinkErrors reports every wrong field of a payload, each with the message
// the API answers for it alone, and nothing for right ones.
func TestLinkErrors(t *testing.T) {
	e := newEnv(t)
	id, _ := e.user("ann")
	u, err := e.store.UserByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	in := &LinkInput{URL: s("javascript:alert(1)"), Custom: s("no"), Expiry: s("tomorrow"),
		MetaTitle: s(strings.Repeat("x", 201)), Status: s("public"), Password: s("fine password")}
	var got []string
	for _, err := range e.srv.LinkErrors(context.Background(), u, in, true) {
		var ae *Error
		if !errors.As(err, &ae) || ae.Status != 400 {
			t.Fatalf("not a 400: %v", err)
		}
		field, _, _ := strings.Cut(ae.Message, ":")
		got = append(got, field)
	}
	if strings.Join(got, ",") != "url,custom,expiry,metatitle" {
		t.Errorf("fields %v, want url,custom,expiry,metatitle", got)
	}
	if errs := e.srv.LinkErrors(context.Background(), u, &LinkInput{}, true); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "400: url: required") {
		t.Errorf("empty add: %v", errs)
	}
	if errs := e.srv.LinkErrors(context.Background(), u, &LinkInput{}, false); len(errs) != 0 {
		t.Errorf("empty update: %v", errs)
	}
}

// RegistrationErrors reports every wrong field of a sign-up at once.
func TestRegistrationErrors(t *testing.T) {
	errs := RegistrationErrors(Registration{Email: "x", Username: "Admin", Password: "x"})
	var got []string
	for _, err := range errs {
		got = append(got, strings.SplitN(err.(*Error).Message, ":", 2)[0])
	}
	if strings.Join(got, ",") != "email,username,password" {
		t.Errorf("fields %v", got)
	}
	if errs := RegistrationErrors(Registration{Email: "ann@example.com", Username: "ann", Password: "a long passphrase"}); len(errs) != 0 {
		t.Errorf("a valid sign-up: %v", errs)
	}
}
