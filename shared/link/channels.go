package link

import "time"

// Channel groups links, bio pages and QR codes.
type Channel struct {
	ID          int64
	UserID      int64
	Name        string
	Description string
	Color       string // #RRGGBB upper case, or ""
	Starred     bool
	CreatedAt   time.Time
}

// Channel item kinds, as in the assign path and the item's type field.
const (
	ItemLinks = "links"
	ItemBio   = "bio"
	ItemQR    = "qr"
)

// ItemKinds lists the kinds a channel can hold.
var ItemKinds = []string{ItemLinks, ItemBio, ItemQR}

// ChannelItem is one entry of a channel's item list, with raw parts the
// API turns into title, preview and link.
type ChannelItem struct {
	Kind      string // ItemLinks | ItemBio | ItemQR
	ID        int64
	Title     string // links: meta title or alias; bio: title; qr: name
	Alias     string // links and bio: alias; qr: code
	Target    string // links: long URL
	Domain    string // links: scheme://host of a branded domain, "" = default
	CreatedAt time.Time
}
