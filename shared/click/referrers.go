package click

// The referrer table: which hosts belong to which category. Keys are
// lower-case hosts without "www."; a key also matches its subdomains
// (l.facebook.com matches facebook.com), and the longest listed suffix
// wins, so mail.google.com (email) beats the google brand (searchengine).
// Android apps send android-app://<package>/ referrers; their package names
// are listed like hosts. Keep entries sorted within each block.
var refHosts = map[string]RefCategory{
	// socialnetwork
	"facebook.com":         RefSocialNetwork,
	"fb.com":               RefSocialNetwork,
	"fb.me":                RefSocialNetwork,
	"com.facebook.katana":  RefSocialNetwork,
	"com.linkedin.android": RefSocialNetwork,
	"linkedin.com":         RefSocialNetwork,
	"lnkd.in":              RefSocialNetwork,
	"ok.ru":                RefSocialNetwork,
	"quora.com":            RefSocialNetwork,
	"redd.it":              RefSocialNetwork,
	"reddit.com":           RefSocialNetwork,
	"snapchat.com":         RefSocialNetwork,
	"tiktok.com":           RefSocialNetwork,
	"vk.com":               RefSocialNetwork,
	"xing.com":             RefSocialNetwork,
	"youtu.be":             RefSocialNetwork,
	"youtube.com":          RefSocialNetwork,

	// microblog
	"bsky.app":            RefMicroblog,
	"com.twitter.android": RefMicroblog,
	"fosstodon.org":       RefMicroblog,
	"mastodon.social":     RefMicroblog,
	"mstdn.social":        RefMicroblog,
	"t.co":                RefMicroblog,
	"threads.com":         RefMicroblog,
	"threads.net":         RefMicroblog,
	"tumblr.com":          RefMicroblog,
	"twitter.com":         RefMicroblog,
	"weibo.com":           RefMicroblog,
	"x.com":               RefMicroblog,

	// photosharing
	"500px.com":             RefPhotoSharing,
	"com.instagram.android": RefPhotoSharing,
	"flic.kr":               RefPhotoSharing,
	"flickr.com":            RefPhotoSharing,
	"imgur.com":             RefPhotoSharing,
	"instagram.com":         RefPhotoSharing,
	"pin.it":                RefPhotoSharing,
	"vsco.co":               RefPhotoSharing,

	// searchengine (google.*, yahoo.*, yandex.* are brands, below)
	"ask.com":   RefSearchEngine,
	"baidu.com": RefSearchEngine,
	"bing.com":  RefSearchEngine,
	"com.google.android.googlequicksearchbox": RefSearchEngine,
	"duckduckgo.com":   RefSearchEngine,
	"ecosia.org":       RefSearchEngine,
	"naver.com":        RefSearchEngine,
	"qwant.com":        RefSearchEngine,
	"search.brave.com": RefSearchEngine,
	"seznam.cz":        RefSearchEngine,
	"startpage.com":    RefSearchEngine,
	"ya.ru":            RefSearchEngine,

	// messaging
	"com.discord":            RefMessaging,
	"com.slack":              RefMessaging,
	"com.whatsapp":           RefMessaging,
	"discord.com":            RefMessaging,
	"discord.gg":             RefMessaging,
	"discordapp.com":         RefMessaging,
	"line.me":                RefMessaging,
	"m.me":                   RefMessaging,
	"messenger.com":          RefMessaging,
	"org.telegram.messenger": RefMessaging,
	"signal.org":             RefMessaging,
	"skype.com":              RefMessaging,
	"slack.com":              RefMessaging,
	"t.me":                   RefMessaging,
	"teams.microsoft.com":    RefMessaging,
	"telegram.me":            RefMessaging,
	"telegram.org":           RefMessaging,
	"viber.com":              RefMessaging,
	"wa.me":                  RefMessaging,
	"whatsapp.com":           RefMessaging,

	// email
	"com.google.android.gm":        RefEmail,
	"com.microsoft.office.outlook": RefEmail,
	"e.mail.ru":                    RefEmail,
	"mail.aol.com":                 RefEmail,
	"mail.google.com":              RefEmail,
	"mail.proton.me":               RefEmail,
	"mail.yahoo.com":               RefEmail,
	"mail.yandex.ru":               RefEmail,
	"outlook.live.com":             RefEmail,
	"outlook.office.com":           RefEmail,
	"outlook.office365.com":        RefEmail,
}

// refBrands match a host when one of its labels other than the last is the
// brand, whatever the country domain: google.de, google.co.uk,
// news.google.com, search.yahoo.co.jp, pinterest.fr, mastodon.online.
// Listed hosts (refHosts) are tried first.
var refBrands = map[string]RefCategory{
	"google":    RefSearchEngine,
	"mastodon":  RefMicroblog,
	"pinterest": RefPhotoSharing,
	"yahoo":     RefSearchEngine,
	"yandex":    RefSearchEngine,
}
