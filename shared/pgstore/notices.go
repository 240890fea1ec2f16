package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Change notices: the triggers of migrations 0003, 0030 and 0032 announce
// every write the edge caches on channel kurz_changes, at commit. This file
// reads them; table names and payload keys stay here, callers see a typed
// Change.

// ChangeChannel is the notification channel of the triggers.
const ChangeChannel = "kurz_changes"

// Object names what a change notice is about.
type Object uint8

// The objects the edge caches or embeds in cached links.
const (
	ObjectUnknown    Object = iota // a notice not understood: resync
	ObjectLink                     // links
	ObjectLinkPixels               // link_pixels: the pixel set of links (IDs)
	ObjectDomain                   // domains
	ObjectPixel                    // pixels
	ObjectOverlay                  // overlays
	ObjectSplash                   // splash_pages
	ObjectCampaign                 // campaigns
	ObjectQR                       // qr_codes
)

var objectTables = map[string]Object{
	"links": ObjectLink, "link_pixels": ObjectLinkPixels, "domains": ObjectDomain,
	"pixels": ObjectPixel, "overlays": ObjectOverlay, "splash_pages": ObjectSplash,
	"campaigns": ObjectCampaign, "qr_codes": ObjectQR,
}

func (o Object) String() string {
	for t, obj := range objectTables {
		if obj == o {
			return t
		}
	}
	return "unknown"
}

// Op is the write a notice announces.
type Op uint8

// Writes.
const (
	OpInsert Op = iota + 1
	OpUpdate
	OpDelete
)

var ops = map[string]Op{"INSERT": OpInsert, "UPDATE": OpUpdate, "DELETE": OpDelete}

// Change is one change notice.
type Change struct {
	Object Object
	Op     Op
	// ID is the row's id (for link_pixels, 0: see IDs).
	ID int64
	// IDs are the links whose pixel sets one statement changed
	// (ObjectLinkPixels), several hundred per notice at most.
	IDs []int64
	// Host and Alias name a link (ObjectLink; OldHost and OldAlias its key
	// before an update) or a domain (Host).
	Host, Alias, OldHost, OldAlias string
	// CampaignID is a link's campaign, OldCampaignID its campaign before an
	// update; 0 = none.
	CampaignID, OldCampaignID int64
	// AllCampaigns: a link notice that does not name its campaigns (sent
	// by the trigger before migration 0030): any campaign may be stale.
	AllCampaigns bool
	// Code is a QR code's public code (ObjectQR).
	Code string
	// Slug, OldSlug ("" = none; OldSlug on update) and Username (its
	// owner's; "" when the owner is being deleted) name the keys a
	// campaign is reached by (ObjectCampaign, migration 0032).
	// CampaignKeys is false when the notice does not carry them (the
	// trigger before 0032): any campaign key may have changed.
	Slug, OldSlug, Username string
	CampaignKeys            bool
	// Payload is the notice as sent, for logs (kept for ObjectUnknown).
	Payload string
}

// payload is the JSON the triggers send.
type payload struct {
	T             string  `json:"t"`
	Op            string  `json:"op"`
	ID            int64   `json:"id"`
	IDs           []int64 `json:"ids"`
	Host          string  `json:"host"`
	Alias         string  `json:"alias"`
	OldHost       string  `json:"old_host"`
	OldAlias      string  `json:"old_alias"`
	CampaignID    *int64  `json:"campaign_id"` // 0 = none; absent before migration 0030
	OldCampaignID int64   `json:"old_campaign_id"`
	Code          string  `json:"code"`
	Slug          *string `json:"slug"` // absent before migration 0032
	OldSlug       string  `json:"old_slug"`
	Username      string  `json:"username"`
}

// ParseChange decodes a notice's payload. A payload that does not parse,
// or names a table or write not known here, is ObjectUnknown.
func ParseChange(raw string) Change {
	var p payload
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return Change{Payload: raw}
	}
	obj, op := objectTables[p.T], ops[p.Op]
	if obj == ObjectUnknown || op == 0 {
		return Change{Payload: raw}
	}
	c := Change{
		Object: obj, Op: op, ID: p.ID, IDs: p.IDs,
		Host: p.Host, Alias: p.Alias, OldHost: p.OldHost, OldAlias: p.OldAlias,
		OldCampaignID: p.OldCampaignID, Code: p.Code, Payload: raw,
	}
	if p.CampaignID != nil {
		c.CampaignID = *p.CampaignID
	} else if obj == ObjectLink {
		c.AllCampaigns = true
	}
	if obj == ObjectCampaign && p.Slug != nil {
		c.Slug, c.OldSlug, c.Username, c.CampaignKeys = *p.Slug, p.OldSlug, p.Username, true
	}
	if obj == ObjectLinkPixels && len(c.IDs) == 0 && c.ID != 0 {
		c.IDs = []int64{c.ID} // a row-level notice (before migration 0030)
	}
	return c
}

// Notices is one LISTEN session: a dedicated connection outside the pool.
// Notices sent while no session is open are lost, so whoever reads them
// must assume it missed some after each Listen.
type Notices struct {
	conn  *pgx.Conn
	pool  *pgxpool.Pool // sends the lag probes (probe.go)
	probe probes
	// pingEvery: a wait longer than this without a notice pings the
	// server, so a half-open socket is found within seconds.
	pingEvery time.Duration
}

// NoticePing is how long Next waits for a notice before it checks the
// connection with a ping.
const NoticePing = 5 * time.Second

// Listen opens a connection (bounded by ctx) and listens on ChangeChannel
// and the session's probe channel (probe.go). Only notices committed after
// Listen returns are delivered.
func (s *Store) Listen(ctx context.Context) (*Notices, error) {
	probe, err := newProbeChannel()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return nil, fmt.Errorf("listen: connect: %w", mapErr(err))
	}
	if _, err := conn.Exec(ctx, "LISTEN "+ChangeChannel+"; LISTEN "+probe); err != nil {
		conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // failing anyway
		return nil, fmt.Errorf("listen: %w", mapErr(err))
	}
	n := &Notices{conn: conn, pool: s.pool, pingEvery: NoticePing}
	n.probe.channel = probe
	return n, nil
}

// Next waits for the next change notice (recording the lag probes that
// arrive meanwhile). It returns ctx's error when ctx ends,
// and another error when the connection is lost (also found by a ping
// after NoticePing without notices); the session is then over.
func (n *Notices) Next(ctx context.Context) (Change, error) {
	for {
		wctx, cancel := context.WithTimeout(ctx, n.pingEvery)
		note, err := n.conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil && note.Channel == n.probe.channel:
			n.probe.receivedAt(note.Payload, time.Now())
		case err == nil:
			return ParseChange(note.Payload), nil
		case ctx.Err() != nil:
			return Change{}, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && !n.conn.IsClosed():
			pctx, cancel := context.WithTimeout(ctx, n.pingEvery)
			err := n.conn.Ping(pctx)
			cancel()
			if err != nil {
				return Change{}, fmt.Errorf("listen: ping: %w", mapErr(err))
			}
		default:
			return Change{}, fmt.Errorf("listen: %w", mapErr(err))
		}
	}
}

// Close ends the session.
func (n *Notices) Close(ctx context.Context) { n.conn.Close(ctx) } //nolint:errcheck // nothing to keep
