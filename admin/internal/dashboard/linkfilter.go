package dashboard

import (
	"context"
	"net/url"
	"strconv"

	"kurz/shared/link"
)

// The link table's campaign and channel filters: selects of the user's own
// campaigns and channels. They combine with the search and both orders,
// and every page link and the bulk delete keep them. Another user's or an
// unknown id in the address is the 404 page, as for any record.

// linkFilter is the filter selects of the table.
type linkFilter struct {
	Campaigns, Channels []choice // the user's, newest choiceLimit; "" first: all
	Campaign, Channel   string   // the picked ids, "" for all
	// CampaignName and ChannelName name the picked ones, for captions.
	CampaignName, ChannelName string
}

// Active says whether a campaign or channel is picked.
func (f linkFilter) Active() bool { return f.Campaign != "" || f.Channel != "" }

// queryField is one hidden field of a form that carries the table's
// filters on (name, value).
type queryField struct{ Name, Value string }

// parseFilterID reads a campaign or channel id of the query ("" is none).
func parseFilterID(v, what string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	id, ok := link.ParseID(v)
	if !ok {
		return 0, errBadQuery("The " + what + " in this address is not valid.")
	}
	return id, nil
}

// filterValues is the query string of q's search, order and filters,
// without a page position: where pages and the bulk delete lead back to.
func (q linkQuery) filterValues() url.Values {
	v := url.Values{}
	if q.search != "" {
		v.Set("q", q.search)
	}
	if q.byClicks {
		v.Set("sort", "clicks")
	}
	if q.campaign != 0 {
		v.Set("campaign", strconv.FormatInt(q.campaign, 10))
	}
	if q.channel != 0 {
		v.Set("channel", strconv.FormatInt(q.channel, 10))
	}
	return v
}

// fields are filterValues as hidden form fields, in a stable order.
func (q linkQuery) fields() []queryField {
	v := q.filterValues()
	var out []queryField
	for _, k := range []string{"q", "sort", "campaign", "channel"} {
		if x := v.Get(k); x != "" {
			out = append(out, queryField{k, x})
		}
	}
	return out
}

// tableURL is the table with q's search, order and filters, first page.
func (q linkQuery) tableURL() string {
	if v := q.filterValues(); len(v) > 0 {
		return "/links?" + v.Encode()
	}
	return "/links"
}

// linkFilter loads the selects and checks that the picked campaign and
// channel are u's.
func (s *Server) linkFilter(ctx context.Context, u *link.User, q linkQuery) (linkFilter, error) {
	var f linkFilter
	campaigns, _, err := s.store.ListCampaigns(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return f, err
	}
	for i := range campaigns {
		f.Campaigns = append(f.Campaigns, choice{strconv.FormatInt(campaigns[i].ID, 10), campaignLabel(&campaigns[i])})
	}
	channels, _, err := s.store.ListChannels(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return f, err
	}
	for _, ch := range channels {
		f.Channels = append(f.Channels, choice{strconv.FormatInt(ch.ID, 10), ch.Name})
	}
	if q.campaign != 0 {
		c, err := s.store.CampaignByID(ctx, u.ID, q.campaign)
		if err != nil {
			return f, err // another user's: link.ErrNotFound, the 404 page
		}
		f.Campaign, f.CampaignName = strconv.FormatInt(c.ID, 10), campaignLabel(&c)
		f.Campaigns = keepPicked(f.Campaigns, choice{f.Campaign, f.CampaignName})
	}
	if q.channel != 0 {
		ch, err := s.store.ChannelByID(ctx, u.ID, q.channel)
		if err != nil {
			return f, err // another user's: link.ErrNotFound, the 404 page
		}
		f.Channel, f.ChannelName = strconv.FormatInt(ch.ID, 10), ch.Name
		f.Channels = keepPicked(f.Channels, choice{f.Channel, f.ChannelName})
	}
	return f, nil
}

// keepPicked adds the picked option when it is past the list's limit.
func keepPicked(cs []choice, picked choice) []choice {
	if hasChoice(cs, picked.Value) {
		return cs
	}
	return append(cs, picked)
}

// campaignLabel is a campaign's name, or "Campaign N" for one without
// (the API allows that).
func campaignLabel(c *link.Campaign) string {
	if c.Name == "" {
		return "Campaign " + strconv.FormatInt(c.ID, 10)
	}
	return c.Name
}
