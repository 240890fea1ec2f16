package visitorpage

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// hashSource is the CSP source expression allowing exactly the inline
// <script> or <style> element whose text is s.
func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// cspTail closes every policy: no <base> rewriting and no framing of our
// pages by anyone (clickjacking on the password form, overlay spoofing).
const cspTail = "; base-uri 'none'; frame-ancestors 'none'"

// embedTail replaces cspTail in EmbedHeaders.
const embedTail = "; base-uri 'none'; frame-ancestors 'self'; sandbox allow-scripts"

// policies holds the hash sources of the embedded inline assets.
type policies struct {
	css, splash, pixel, frame string
}

func (h policies) static() string {
	return "default-src 'none'; style-src " + h.css + "; form-action 'none'" + cspTail
}

// password leaves form-action unset on purpose: Chrome applies form-action
// to every redirect that follows the submission, and a correct password
// ends in a redirect to the (foreign) destination. The form itself is fixed
// markup without an action, so it can only post back to the same URL.
func (h policies) password() string {
	return "default-src 'none'; style-src " + h.css + cspTail
}

// framePolicy allows any http(s) document in the iframe (the destination
// is the link's URL, which may be on any host) and the fallback script
// (assets/frame.js) that navigates to the destination when it refuses to
// be framed.
func (h policies) framePolicy() string {
	return "default-src 'none'; style-src " + h.css + "; script-src " + h.frame +
		"; frame-src https: http:; form-action 'none'" + cspTail
}

// overlay adds the hash of the per-render colour block.
func (h policies) overlay(colorCSS string) string {
	return "default-src 'none'; style-src " + h.css + " " + hashSource(colorCSS) + "; script-src " + h.frame +
		"; frame-src https: http:; form-action 'none'" + cspTail
}

// splash allows the custom image from any http(s) host.
func (h policies) splashPolicy() string {
	return "default-src 'none'; style-src " + h.css + "; script-src " + h.splash +
		"; img-src https: http:; form-action 'none'" + cspTail
}

// pixelPolicy lists exactly the hosts of the vendors whose bits are set in
// mask (bit i = vendors[i]). A vendor script that later pulls code from a
// host outside its list (a GTM container's custom tags, for instance) is
// blocked by design: the page exists to fire the pixels, not to run
// arbitrary third-party code on our origin.
func (h policies) pixelPolicy(mask uint16) string {
	var b strings.Builder
	b.Grow(512)
	b.WriteString("default-src 'none'; style-src ")
	b.WriteString(h.css)
	b.WriteString("; script-src ")
	b.WriteString(h.pixel)
	writeHosts(&b, mask, func(v *vendor) []string { return v.script })
	writeDirective(&b, "img-src", mask, func(v *vendor) []string { return v.img })
	writeDirective(&b, "connect-src", mask, func(v *vendor) []string { return v.connect })
	writeDirective(&b, "frame-src", mask, func(v *vendor) []string { return v.frame })
	b.WriteString("; form-action 'none'")
	b.WriteString(cspTail)
	return b.String()
}

// writeDirective writes "; name host..." when any selected vendor has hosts
// for it; otherwise default-src 'none' applies.
func writeDirective(b *strings.Builder, name string, mask uint16, hosts func(*vendor) []string) {
	found := false
	for i := range vendors {
		if mask&(1<<i) != 0 && len(hosts(&vendors[i])) > 0 {
			found = true
			break
		}
	}
	if !found {
		return
	}
	b.WriteString("; ")
	b.WriteString(name)
	writeHosts(b, mask, hosts)
}

// writeHosts appends " host" for each distinct host of the selected vendors,
// in table order so the policy is deterministic.
func writeHosts(b *strings.Builder, mask uint16, hosts func(*vendor) []string) {
	for i := range vendors {
		if mask&(1<<i) == 0 {
			continue
		}
		for _, h := range hosts(&vendors[i]) {
			if !seenBefore(mask, i, h, hosts) {
				b.WriteByte(' ')
				b.WriteString(h)
			}
		}
	}
}

// seenBefore reports whether a selected vendor before index i lists host h.
func seenBefore(mask uint16, i int, h string, hosts func(*vendor) []string) bool {
	for j := 0; j < i; j++ {
		if mask&(1<<j) == 0 {
			continue
		}
		for _, o := range hosts(&vendors[j]) {
			if o == h {
				return true
			}
		}
	}
	return false
}
