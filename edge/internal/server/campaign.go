package server

import (
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"kurz/shared/link"
	"kurz/shared/visitorpage"
)

// rotations holds the rotators' counters by campaign id. They live outside
// the campaign cache: an entry reloaded after an invalidation (a change
// of one of its links, or of any campaign) or after a ristretto Set that
// had not landed yet would otherwise restart at the first link, and
// frequent reloads would send most visits there. Campaign ids are sequential, so the first
// 16384 campaigns have a counter each; campaigns whose ids differ by a
// multiple of that share one, which keeps each rotating but only roughly
// evenly. Counters are per edge process: rotation is even per edge, which
// over many visits is even overall.
type rotations [1 << 14]atomic.Uint64

// next returns campaign id's next turn: 0, 1, 2, ...
func (r *rotations) next(id int64) uint64 { return r[uint64(id)%uint64(len(r))].Add(1) - 1 }

// rotator serves /r/{slug}: the campaign's links in turn, each visit served
// exactly as a visit of the chosen link (all its rules, one click on it).
func (s *Server) rotator(ctx *fasthttp.RequestCtx) {
	slug, _ := ctx.UserValue("slug").(string)
	if slug == "" || len(slug) > 128 {
		s.notFoundRoute(ctx)
		return
	}
	rot, found, err := s.cat.RotatorCampaign(slug)
	switch {
	case err != nil:
		s.loadFailed(ctx, err)
		return
	case !found || rot.Len() == 0:
		s.notFoundRoute(ctx)
		return
	}
	// The rotator holds only its links' keys: the chosen one is resolved
	// like a visit of its short URL, through the link cache.
	host, alias := rot.Key(int(s.rotations.next(rot.ID) % uint64(rot.Len())))
	l, ok := s.cat.Link(host, []byte(alias))
	if !ok {
		if l, err = s.cat.LoadLink(loadCtx(), host, alias); err != nil {
			s.loadFailed(ctx, err)
			return
		}
	}
	if l.Missing() {
		s.notFoundRoute(ctx)
		return
	}
	if l.PasswordHash != "" {
		// The form posts to, and the unlock cookie is scoped to, the
		// link's own URL: send the visitor there (its rules, and its
		// click once unlocked, happen on that visit).
		s.redirect(ctx, s.shortURL(ctx, l))
		return
	}
	s.serveLink(ctx, l, 0)
}

// campaignList serves /u/{username}/{campaign}: a public campaign's public
// links, the newest link.MaxCampaignListLinks at most; {campaign} is the
// rotator slug, or the id for campaigns without one. Private and unknown
// campaigns are the same 404.
func (s *Server) campaignList(ctx *fasthttp.RequestCtx) {
	user, _ := ctx.UserValue("username").(string)
	ref, _ := ctx.UserValue("campaign").(string)
	if user == "" || ref == "" || len(user) > 128 || len(ref) > 128 {
		s.notFoundRoute(ctx)
		return
	}
	camp, found, err := s.cat.UserCampaign(user, ref)
	switch {
	case err != nil:
		s.loadFailed(ctx, err)
		return
	case !found || !camp.Public:
		s.notFoundRoute(ctx)
		return
	}
	d := &visitorpage.CampaignPage{Name: camp.Name, Owner: camp.Username, More: camp.More}
	for _, l := range camp.Links {
		d.Links = append(d.Links, visitorpage.CampaignLink{
			Title: l.Title, Alias: l.Alias, Description: l.Description,
			ShortURL: s.campaignShortURL(l),
		})
	}
	s.page(ctx, d)
}

func (s *Server) campaignShortURL(l link.EdgeCampaignLink) string {
	if l.Host == "" || l.Domain == "" {
		return s.cfg.BaseURL + "/" + l.Alias
	}
	return l.Domain + "/" + l.Alias
}
