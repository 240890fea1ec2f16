package target

import (
	"math/bits"

	"kurz/shared/click"
)

type tokenKind uint8

const (
	kindDevice  tokenKind = iota + 1
	kindSocial            // link-preview fetcher that renders Open Graph cards
	kindScanner           // mail security scanner / office link checker
	kindBot               // crawler, monitor or HTTP library
	kindShadow            // hides another token it ends with (see newAutomaton)
)

type uaToken struct {
	s      string // lower case; matched case-insensitively as a substring
	kind   tokenKind
	device Device // for kindDevice
	shadow string // for kindShadow: the token it hides
}

// uaTokens is the User-Agent dictionary. Device tokens come first, in
// precedence order (see DeviceOf): the device of an agent is the one of its
// lowest-numbered matching token.
//
// Deliberately absent: in-app browsers of social apps (FBAN/FBAV, Instagram,
// "LinkedInApp", "Twitter for iPhone", LINE's "Line/", KAKAOTALK, Pinterest's
// "[Pinterest/iOS]") are people following a link, so only the apps' fetchers
// are listed ("line-poker", "kakaotalk-scrap", "pinterest/0.", ...).
var uaTokens = [...]uaToken{
	{s: "windows phone", kind: kindDevice, device: DeviceWindowsPhone},
	{s: "iemobile", kind: kindDevice, device: DeviceWindowsPhone},
	{s: "wpdesktop", kind: kindDevice, device: DeviceWindowsPhone},
	{s: "blackberry", kind: kindDevice, device: DeviceBlackBerry},
	{s: "bb10", kind: kindDevice, device: DeviceBlackBerry},
	{s: "playbook", kind: kindDevice, device: DeviceBlackBerry},
	{s: "rim tablet", kind: kindDevice, device: DeviceBlackBerry},
	{s: "ipad", kind: kindDevice, device: DeviceIPad},
	{s: "ipod", kind: kindDevice, device: DeviceIPod},
	{s: "iphone", kind: kindDevice, device: DeviceIPhone},
	{s: "; cros ", kind: kindDevice, device: DeviceChromeOS},
	{s: "android", kind: kindDevice, device: DeviceAndroid},
	{s: "windows", kind: kindDevice, device: DeviceWindows},
	{s: "macintosh", kind: kindDevice, device: DeviceMacOS},
	{s: "mac os x", kind: kindDevice, device: DeviceMacOS},
	{s: "linux", kind: kindDevice, device: DeviceLinux},

	{s: "facebookexternalhit", kind: kindSocial},
	{s: "facebot", kind: kindSocial},
	{s: "twitterbot", kind: kindSocial},
	{s: "linkedinbot", kind: kindSocial},
	{s: "slackbot", kind: kindSocial}, // also Slackbot-LinkExpanding
	{s: "slack-imgproxy", kind: kindSocial},
	{s: "whatsapp", kind: kindSocial},
	{s: "discordbot", kind: kindSocial},
	{s: "telegrambot", kind: kindSocial},
	{s: "skypeuripreview", kind: kindSocial}, // Skype and Microsoft Teams
	{s: "pinterestbot", kind: kindSocial},
	{s: "pinterest/0.", kind: kindSocial},
	{s: "redditbot", kind: kindSocial},
	{s: "embedly", kind: kindSocial},
	{s: "iframely", kind: kindSocial},
	{s: "vkshare", kind: kindSocial},
	{s: "viber", kind: kindSocial},
	{s: "line-poker", kind: kindSocial},
	{s: "kakaotalk-scrap", kind: kindSocial},
	{s: "mastodon", kind: kindSocial},
	{s: "misskey", kind: kindSocial},
	{s: "pleroma", kind: kindSocial},
	{s: "akkoma", kind: kindSocial},
	{s: "cardyb", kind: kindSocial}, // Bluesky
	{s: "google-pagerenderer", kind: kindSocial},
	{s: "bingpreview", kind: kindSocial},
	{s: "link preview", kind: kindSocial}, // Yahoo, Quora, Zoom
	{s: "linkpreview", kind: kindSocial},
	{s: "url preview", kind: kindSocial}, // Snap
	{s: "urlpreview", kind: kindSocial},

	{s: "microsoft office", kind: kindScanner},
	{s: "ms-office", kind: kindScanner},
	{s: "outlook", kind: kindScanner},
	{s: "proofpoint", kind: kindScanner},
	{s: "barracuda", kind: kindScanner},
	{s: "mimecast", kind: kindScanner},

	// Generic words first: they cover Googlebot, bingbot, YandexBot,
	// DuckDuckBot, AhrefsBot, SemrushBot, MJ12bot, PetalBot, GPTBot,
	// ClaudeBot, CCBot, Applebot, Baiduspider, Bytespider, ...
	{s: "bot", kind: kindBot},
	{s: "crawl", kind: kindBot},
	{s: "spider", kind: kindBot},
	{s: "slurp", kind: kindBot},
	{s: "archiver", kind: kindBot},
	{s: "headless", kind: kindBot}, // HeadlessChrome
	{s: "phantomjs", kind: kindBot},
	{s: "selenium", kind: kindBot},
	{s: "puppeteer", kind: kindBot},
	{s: "playwright", kind: kindBot},
	{s: "lighthouse", kind: kindBot},
	{s: "curl", kind: kindBot},
	{s: "wget", kind: kindBot},
	{s: "python", kind: kindBot}, // python-requests, urllib, aiohttp, httpx
	{s: "go-http-client", kind: kindBot},
	{s: "okhttp", kind: kindBot},
	{s: "java/", kind: kindBot},
	{s: "httpclient", kind: kindBot}, // Apache-HttpClient
	{s: "http-client", kind: kindBot},
	{s: "libwww", kind: kindBot},
	{s: "lwp-", kind: kindBot},
	{s: "node-fetch", kind: kindBot},
	{s: "undici", kind: kindBot},
	{s: "axios", kind: kindBot},
	{s: "guzzle", kind: kindBot},
	{s: "reqwest", kind: kindBot},
	{s: "dart/", kind: kindBot},
	{s: "ruby", kind: kindBot},
	{s: "perl", kind: kindBot},
	{s: "php", kind: kindBot},
	{s: "scrapy", kind: kindBot},
	{s: "postman", kind: kindBot},
	{s: "insomnia", kind: kindBot},
	{s: "httpie", kind: kindBot},
	{s: "pingdom", kind: kindBot},
	{s: "uptime", kind: kindBot},
	{s: "statuscake", kind: kindBot},
	{s: "facebookcatalog", kind: kindBot},
	{s: "meta-external", kind: kindBot},
	{s: "google-inspectiontool", kind: kindBot},
	{s: "googleother", kind: kindBot},
	{s: "mediapartners-google", kind: kindBot},
	{s: "apis-google", kind: kindBot},
	{s: "feedfetcher", kind: kindBot},
	{s: "qwantify", kind: kindBot},
	{s: "yeti/", kind: kindBot}, // Naver
	{s: "daumoa", kind: kindBot},
	{s: "chatgpt", kind: kindBot},
	{s: "anthropic-ai", kind: kindBot},
	{s: "claude-web", kind: kindBot},
	{s: "cohere-ai", kind: kindBot},
	{s: "perplexity", kind: kindBot},
	{s: "diffbot", kind: kindBot},
	{s: "dataforseo", kind: kindBot},

	{s: "cubot", kind: kindShadow, shadow: "bot"}, // Cubot phones are people
}

// Compile-time guard: tokenSet holds 128 bits. (Device tokens must also sit
// in its first word, for device()'s single TrailingZeros64; newUAMatcher
// checks that.)
var _ [128 - len(uaTokens)]struct{}

// uaMatcher is the compiled dictionary; read-only after package init.
type uaMatcher struct {
	ac       *automaton
	devices  uint64     // device token bits (all in word 0)
	deviceOf [64]Device // token index -> device
	social   tokenSet   // kindSocial
	preview  tokenSet   // kindSocial | kindScanner
	bot      tokenSet   // kindBot
}

var uaIndex = newUAMatcher()

func newUAMatcher() *uaMatcher {
	m := &uaMatcher{}
	strs := make([]string, len(uaTokens))
	index := make(map[string]int, len(uaTokens))
	for i, t := range uaTokens {
		strs[i] = t.s
		index[t.s] = i
	}
	shadows := map[int]int{}
	for i, t := range uaTokens {
		switch t.kind {
		case kindDevice:
			if i >= 64 {
				panic("target: device tokens must come first")
			}
			m.devices |= 1 << i
			m.deviceOf[i] = t.device
		case kindSocial:
			m.social.add(i)
			m.preview.add(i)
		case kindScanner:
			m.preview.add(i)
		case kindBot:
			m.bot.add(i)
		case kindShadow:
			victim, ok := index[t.shadow]
			if !ok {
				panic("target: shadowed token " + t.shadow + " is not in the dictionary")
			}
			shadows[i] = victim
		}
	}
	m.ac = newAutomaton(strs, shadows)
	return m
}

// agentFacts is the result of one scan of a User-Agent.
type agentFacts struct {
	m     *uaMatcher
	found tokenSet
	empty bool
}

func (m *uaMatcher) inspect(ua []byte) agentFacts {
	return agentFacts{m: m, found: m.ac.scan(ua), empty: isBlank(ua)}
}

func (f agentFacts) device() Device {
	d := f.found[0] & f.m.devices
	if d == 0 {
		return DeviceUnknown
	}
	return f.m.deviceOf[bits.TrailingZeros64(d)]
}

// class applies the precedence preview > bot > prefetch > human: a HEAD
// from Slackbot is still a preview and one from curl still a bot, because
// who asks says more than how.
func (f agentFacts) class(method, purpose []byte) click.Class {
	switch {
	case f.found.intersects(f.m.preview):
		return click.ClassPreview
	case f.empty || f.found.intersects(f.m.bot):
		return click.ClassBot
	}
	return RequestClass(click.ClassHuman, method, purpose)
}

// RequestClass applies the request's method and prefetch hint to the class
// of its User-Agent: a human's HEAD request or prefetch is a prefetch; any
// other class stands. It lets a caller that caches the agent's class per
// User-Agent (the edge) finish the classification per request.
func RequestClass(agent click.Class, method, purpose []byte) click.Class {
	if agent == click.ClassHuman && (isHead(method) || isPrefetch(purpose)) {
		return click.ClassPrefetch
	}
	return agent
}

// ClassOf classifies a visit without allocating, from the User-Agent, the
// request method and the prefetch hint header. purpose is the value of
// Sec-Purpose, or else Purpose, X-Purpose or X-Moz (whichever is present):
// a value containing "prefetch", "prerender" or "preview" (Safari's
// X-Purpose: preview) is a speculative load, not a click.
//
//   - ClassPreview: link-preview fetchers (facebookexternalhit, Twitterbot,
//     Slackbot, WhatsApp, Discordbot, TelegramBot, ...) and mail scanners or
//     office link checkers (Microsoft Office, Outlook, Proofpoint,
//     Barracuda, Mimecast), whatever the method.
//   - ClassBot: crawlers, monitors, headless browsers and HTTP libraries
//     (curl, Wget, python-requests, Go-http-client, okhttp, Java/, ...), and
//     an empty User-Agent.
//   - ClassPrefetch: a HEAD request or a prefetch hint from anyone else.
//   - ClassHuman: everything else.
func ClassOf(ua, method, purpose []byte) click.Class {
	return uaIndex.inspect(ua).class(method, purpose)
}

// Agent is everything the edge needs to know about a visitor's agent.
type Agent struct {
	Device        Device      // as DeviceOf
	Class         click.Class // as ClassOf
	SocialPreview bool        // as IsSocialPreview: serve the Open Graph page
}

// Inspect returns DeviceOf, ClassOf and IsSocialPreview from a single scan
// of the User-Agent, without allocating; the edge calls it once per request.
func Inspect(ua, method, purpose []byte) Agent {
	f := uaIndex.inspect(ua)
	return Agent{
		Device:        f.device(),
		Class:         f.class(method, purpose),
		SocialPreview: f.found.intersects(uaIndex.social),
	}
}

// IsSocialPreview reports whether the agent is a link-preview fetcher that
// should get the Open Graph / Twitter-card page instead of the redirect.
// Mail scanners and office link checkers are ClassPreview but get false:
// they follow the redirect to vet the destination, and an HTML card would
// hide it from them (and break safe-link rewriting).
func IsSocialPreview(ua []byte) bool {
	return uaIndex.inspect(ua).found.intersects(uaIndex.social)
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func isHead(method []byte) bool {
	return len(method) == 4 && upper(method[0]) == 'H' && upper(method[1]) == 'E' &&
		upper(method[2]) == 'A' && upper(method[3]) == 'D'
}

func isPrefetch(purpose []byte) bool {
	return containsFold(purpose, "prefetch") || containsFold(purpose, "prerender") ||
		containsFold(purpose, "preview")
}

// containsFold reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case, without allocating.
func containsFold(s []byte, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && lower(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
