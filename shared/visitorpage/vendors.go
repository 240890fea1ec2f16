package visitorpage

import (
	"net/url"
	"strings"
)

// vendor is the real tracking product a spec pixel type (2.10) stands for:
// the loader key pixel.js dispatches on, the hosts its snippet needs in the
// Content-Security-Policy and its official no-script fallback, if any.
type vendor struct {
	key     string // loader name in assets/pixel.js
	script  []string
	img     []string
	connect []string
	frame   []string
	// noscriptImg / noscriptFrame build the vendor's <noscript> pixel for a
	// tag; nil when the vendor has none.
	noscriptImg   func(tag string) string
	noscriptFrame func(tag string) string
}

// Pixel types of spec 2.10, in the order of vendors.
var pixelTypes = [...]string{
	"tagmanagerpixel", "analyticspixel", "socialnetworkpixel", "searchadspixel",
	"professionalnetworkpixel", "microblogpixel", "retargetingpixel", "questionsitepixel",
	"imageboard", "searchengine", "messagingapp", "forumsite", "shortvideo",
}

// vendors is indexed like pixelTypes. It is a read-only table.
var vendors = [len(pixelTypes)]vendor{
	{ // Google Tag Manager container (GTM-XXXX)
		key:    "gtm",
		script: []string{"https://www.googletagmanager.com"},
		img:    []string{"https://www.googletagmanager.com"},
		frame:  []string{"https://www.googletagmanager.com"},
		noscriptFrame: func(t string) string {
			return "https://www.googletagmanager.com/ns.html?id=" + url.QueryEscape(t)
		},
	},
	{ // Google Analytics 4 via gtag.js (G-XXXX)
		key:     "ga",
		script:  []string{"https://www.googletagmanager.com"},
		img:     []string{"https://www.googletagmanager.com", "https://*.google-analytics.com"},
		connect: []string{"https://www.googletagmanager.com", "https://*.google-analytics.com", "https://*.analytics.google.com"},
	},
	{ // Meta (Facebook) pixel
		key:     "fb",
		script:  []string{"https://connect.facebook.net"},
		img:     []string{"https://www.facebook.com"},
		connect: []string{"https://www.facebook.com", "https://connect.facebook.net"},
		noscriptImg: func(t string) string {
			return "https://www.facebook.com/tr?id=" + url.QueryEscape(t) + "&ev=PageView&noscript=1"
		},
	},
	{ // Google Ads via gtag.js (AW-XXXX or AW-XXXX/label)
		key:     "aw",
		script:  []string{"https://www.googletagmanager.com", "https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"},
		img:     []string{"https://www.googletagmanager.com", "https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"},
		connect: []string{"https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"},
		frame:   []string{"https://td.doubleclick.net", "https://bid.g.doubleclick.net"},
	},
	{ // LinkedIn Insight tag (_linkedin_partner_id)
		key:     "li",
		script:  []string{"https://snap.licdn.com"},
		img:     []string{"https://px.ads.linkedin.com"},
		connect: []string{"https://px.ads.linkedin.com"},
		noscriptImg: func(t string) string {
			return "https://px.ads.linkedin.com/collect/?pid=" + url.QueryEscape(t) + "&fmt=gif"
		},
	},
	{ // X (Twitter) pixel, twq('config', id)
		key:     "tw",
		script:  []string{"https://static.ads-twitter.com"},
		img:     []string{"https://analytics.twitter.com", "https://t.co"},
		connect: []string{"https://analytics.twitter.com", "https://static.ads-twitter.com", "https://ads-api.twitter.com"},
		noscriptImg: func(t string) string {
			return "https://analytics.twitter.com/i/adsct?txn_id=" + url.QueryEscape(t) + "&p_id=Twitter&tw_sale_amount=0&tw_order_quantity=0"
		},
	},
	{ // AdRoll; tag "ADVERTISER_ID:PIXEL_ID" (or '/' as separator)
		key:     "ar",
		script:  []string{"https://s.adroll.com"},
		img:     []string{"https://d.adroll.com"},
		connect: []string{"https://d.adroll.com", "https://s.adroll.com"},
	},
	{ // Quora pixel, qp('init', id)
		key:     "qr",
		script:  []string{"https://a.quora.com"},
		img:     []string{"https://q.quora.com"},
		connect: []string{"https://q.quora.com"},
		noscriptImg: func(t string) string {
			return "https://q.quora.com/_/ad/" + url.PathEscape(t) + "/pixel?tag=ViewContent&noscript=1"
		},
	},
	{ // Pinterest tag, pintrk('load', id)
		key:     "pi",
		script:  []string{"https://s.pinimg.com"},
		img:     []string{"https://ct.pinterest.com"},
		connect: []string{"https://ct.pinterest.com"},
		noscriptImg: func(t string) string {
			return "https://ct.pinterest.com/v3/?event=init&tid=" + url.QueryEscape(t) + "&noscript=1"
		},
	},
	{ // Microsoft Advertising UET tag (ti)
		key:     "ms",
		script:  []string{"https://bat.bing.com"},
		img:     []string{"https://bat.bing.com"},
		connect: []string{"https://bat.bing.com"},
		noscriptImg: func(t string) string {
			return "https://bat.bing.com/action/0?ti=" + url.QueryEscape(t) + "&Ver=2"
		},
	},
	{ // Snap pixel, snaptr('init', id)
		key:     "sn",
		script:  []string{"https://sc-static.net"},
		img:     []string{"https://tr.snapchat.com"},
		connect: []string{"https://tr.snapchat.com", "https://tr-shadow.snapchat.com"},
	},
	{ // Reddit pixel, rdt('init', id)
		key:     "rd",
		script:  []string{"https://www.redditstatic.com"},
		img:     []string{"https://alb.reddit.com"},
		connect: []string{"https://alb.reddit.com", "https://pixel-config.reddit.com"},
	},
	{ // TikTok pixel, ttq.load(id)
		key:     "tt",
		script:  []string{"https://analytics.tiktok.com"},
		img:     []string{"https://analytics.tiktok.com"},
		connect: []string{"https://analytics.tiktok.com", "https://analytics-ipv6.tiktok.com"},
	},
}

// vendorIndex returns the vendors index of a pixel type, or -1 when the type
// is unknown (such a pixel is skipped, never rendered).
func vendorIndex(typ string) int {
	for i, t := range pixelTypes {
		if strings.EqualFold(t, typ) {
			return i
		}
	}
	return -1
}
