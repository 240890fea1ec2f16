package link

import "strings"

// reservedUsernames are names a self-registered account may not take:
// usernames appear in public URLs (/u/{username}/… campaign lists and bio
// pages), so a stranger called "admin", "support" or "kurz" could pose as
// the service, and mailbox names (RFC 2142) as its staff. Operators can
// still create such accounts with `admin user create`. Names shorter than
// the 3-character minimum ("u", "qr") cannot be registered anyway; they
// are listed so the table stays right if that rule changes.
var reservedUsernames = map[string]bool{
	// the service and its operators
	"kurz": true, "admin": true, "administrator": true, "admins": true, "root": true,
	"sysadmin": true, "superuser": true, "system": true, "staff": true, "team": true,
	"owner": true, "operator": true, "moderator": true, "mod": true, "official": true,
	"support": true, "help": true, "helpdesk": true, "security": true, "billing": true,
	"legal": true, "privacy": true, "terms": true, "status": true, "service": true,
	// mailbox names (RFC 2142 and common ones)
	"abuse": true, "postmaster": true, "webmaster": true, "hostmaster": true,
	"info": true, "contact": true, "mail": true, "email": true, "noreply": true,
	"no-reply": true, "mailer-daemon": true, "nobody": true,
	// paths and hosts the services use or may use
	"api": true, "www": true, "static": true, "assets": true, "u": true, "r": true,
	"q": true, "qr": true, "p": true, "bio": true, "docs": true, "account": true,
	"login": true, "logout": true, "register": true, "signup": true, "signin": true,
	"dashboard": true, "settings": true, "stats": true,
	// words that read as "no user" or "everyone" in pages and logs
	"null": true, "nil": true, "undefined": true, "none": true, "anonymous": true,
	"guest": true, "user": true, "users": true, "me": true, "everyone": true, "all": true,
}

// IsReservedUsername reports whether s (compared case-insensitively) is a
// name self-registration refuses.
func IsReservedUsername(s string) bool {
	return reservedUsernames[strings.ToLower(s)]
}
