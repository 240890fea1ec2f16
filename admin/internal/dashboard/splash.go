package dashboard

import (
	"context"
	"strconv"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/visitorpage"
)

// Splash pages (a message shown for some seconds before the redirect) as
// a visitor-page kind: written through api.Server.AddSplash /
// UpdateSplash / DeleteSplash, checked field by field with
// api.SplashDraft, what POST /api/splash/add and its siblings use.

var splashFields = []string{"name", "title", "message", "image", "link", "counter"}

func (s *Server) splashKind() *vpKind {
	return &vpKind{
		Path: "/splash", Noun: "splash page", Plural: "Splash pages",
		fields: splashFields,
		blank: func() map[string]string {
			return map[string]string{"counter": strconv.Itoa(link.DefaultSplashCounter)}
		},
		list: func(ctx context.Context, userID int64, limit, offset int) ([]vpRecord, int, error) {
			ps, total, err := s.store.ListSplashPages(ctx, userID, limit, offset)
			return vpRecords(ps, total, err, splashRecord)
		},
		load: func(ctx context.Context, userID, id int64) (vpRecord, error) {
			p, err := s.store.SplashPageByID(ctx, userID, id)
			return splashRecord(&p), err
		},
		save: func(ctx context.Context, u *link.User, id int64, f *form) error {
			in, err := splashInput(f)
			if err != nil {
				return err
			}
			if id == 0 {
				_, err = s.api.AddSplash(ctx, u, in)
				return err
			}
			return s.api.UpdateSplash(ctx, u, id, in)
		},
		check: func(f *form) []error {
			in, err := splashInput(f)
			_, errs := api.SplashDraft(in)
			if err != nil {
				errs = append(errs, err)
			}
			return errs
		},
		delete: s.api.DeleteSplash,
		page: func(f *form, dest, image string) visitorpage.Data {
			in, _ := splashInput(f)
			p, _ := api.SplashDraft(in)
			if p.Image != "" {
				p.Image = image
			}
			return &visitorpage.SplashPage{Destination: dest, Counter: p.Counter, Title: p.Title,
				Message: p.Message, Image: p.Image, Link: p.Link}
		},
	}
}

// splashRecord is p's row and form values.
func splashRecord(p *link.SplashPage) vpRecord {
	return vpRecord{ID: p.ID, Name: p.Name, Created: p.CreatedAt, Values: map[string]string{
		"name": p.Name, "title": p.Title, "message": p.Message, "image": p.Image, "link": p.Link,
		"counter": strconv.Itoa(p.Counter),
	}}
}

// splashInput is the API's payload of the form: every field is sent, so
// an emptied one is cleared or refused as the API does. A counter that is
// not a number is the counter's refusal (its input is then left unsent).
func splashInput(f *form) (*api.SplashInput, error) {
	name, title, message := f.Val("name"), f.Val("title"), f.Val("message")
	image, lnk := strings.TrimSpace(f.Val("image")), strings.TrimSpace(f.Val("link"))
	in := &api.SplashInput{Name: &name, Title: &title, Message: &message, Image: &image, Link: &lnk}
	n, err := api.ParseSplashCounter(f.Val("counter"))
	if err != nil {
		return in, err
	}
	in.Counter = &n
	return in, nil
}
