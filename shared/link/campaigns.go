package link

import (
	"strconv"
	"time"
)

// Campaign groups short links; with a slug it also has a rotator.
type Campaign struct {
	ID        int64
	UserID    int64
	Name      string
	Slug      string // "" = no rotator
	Public    bool
	CreatedAt time.Time
}

// RotatorURL is the rotator address {base}/r/{slug}, or "" without a slug.
func (c *Campaign) RotatorURL(baseURL string) string {
	if c.Slug == "" {
		return ""
	}
	return baseURL + "/r/" + c.Slug
}

// ListURL is the public list address {base}/u/{username}/{slug}, or
// {base}/u/{username}/{id} when the campaign has no slug. Slugs are never
// all digits (ValidAlias), so the edge tells the two forms apart.
func (c *Campaign) ListURL(baseURL, username string) string {
	key := c.Slug
	if key == "" {
		key = strconv.FormatInt(c.ID, 10)
	}
	return baseURL + "/u/" + pathEscape(username) + "/" + key
}
