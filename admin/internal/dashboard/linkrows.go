package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"kurz/shared/link"
	"kurz/shared/target"
)

// The link form's rows: geo, device and language rules, URL parameters,
// and the pixels ticked. Each list posts two repeated fields (geo_key,
// geo_url, …), paired by position. Rows are added and removed by submit
// buttons (do=add-geo, do=del-geo-2) that show the form again without
// saving, so the form works without JavaScript.

// maxFormRows bounds the rows the form shows per list; the API's own
// limits (256 rules, 20 parameters) are checked when it saves.
const maxFormRows = 300

// ruleRow is one row: Key is the country, device, language or parameter
// name; URL the destination or the parameter's value.
type ruleRow struct {
	Key, URL       string
	KeyErr, URLErr string
	N              int  // 1-based, for labels
	KeyOther       bool // Key is none of the list's Options
}

// listSpec describes one list of rows.
type listSpec struct {
	Kind, API, KeyAPI, URLAPI string
}

var (
	geoSpec    = listSpec{"geo", "geotarget", "location", "link"}
	deviceSpec = listSpec{"device", "devicetarget", "device", "link"}
	langSpec   = listSpec{"lang", "languagetarget", "language", "link"}
	paramSpec  = listSpec{"param", "parameters", "name", "value"}
	listSpecs  = []listSpec{geoSpec, deviceSpec, langSpec, paramSpec}
)

// linkRows are the posted rows of every list and the ticked pixels.
type linkRows struct {
	lists  map[string][]ruleRow // by Kind
	pixels []int64
}

// readRows reads the rows as posted, blank rows included (a row just
// added is blank).
func readRows(r *http.Request) *linkRows {
	rows := &linkRows{lists: map[string][]ruleRow{}}
	for _, ls := range listSpecs {
		keys, urls := r.PostForm[ls.Kind+"_key"], r.PostForm[ls.Kind+"_url"]
		n := min(max(len(keys), len(urls)), maxFormRows)
		for i := range n {
			rows.lists[ls.Kind] = append(rows.lists[ls.Kind], ruleRow{Key: at(keys, i), URL: at(urls, i)})
		}
	}
	for _, v := range r.PostForm["pixels"] {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil && len(rows.pixels) < maxFormRows {
			rows.pixels = append(rows.pixels, id)
		}
	}
	return rows
}

func at(vs []string, i int) string {
	if i < len(vs) {
		return vs[i]
	}
	return ""
}

// rowsOfLink are a stored link's rows.
func rowsOfLink(l *link.Link) *linkRows {
	rows := &linkRows{lists: map[string][]ruleRow{}, pixels: l.PixelIDs}
	for _, g := range l.GeoTargets {
		rows.lists["geo"] = append(rows.lists["geo"], ruleRow{Key: g.Location, URL: g.Link})
	}
	for _, d := range l.DeviceTargets {
		rows.lists["device"] = append(rows.lists["device"], ruleRow{Key: d.Device, URL: d.Link})
	}
	for _, g := range l.LangTargets {
		rows.lists["lang"] = append(rows.lists["lang"], ruleRow{Key: g.Language, URL: g.Link})
	}
	for _, p := range l.Parameters {
		rows.lists["param"] = append(rows.lists["param"], ruleRow{Key: p.Name, URL: p.Value})
	}
	return rows
}

// compact drops blank rows: what is saved or previewed.
func (rows *linkRows) compact() {
	for kind, rs := range rows.lists {
		kept := rs[:0]
		for _, r := range rs {
			if strings.TrimSpace(r.Key) != "" || strings.TrimSpace(r.URL) != "" {
				kept = append(kept, r)
			}
		}
		rows.lists[kind] = kept
	}
}

// act applies a row button (do=add-geo, do=del-param-3) and reports
// whether do was one.
func (rows *linkRows) act(do string) bool {
	for _, ls := range listSpecs {
		if do == "add-"+ls.Kind {
			if len(rows.lists[ls.Kind]) < maxFormRows {
				rows.lists[ls.Kind] = append(rows.lists[ls.Kind], ruleRow{})
			}
			return true
		}
		if n, ok := strings.CutPrefix(do, "del-"+ls.Kind+"-"); ok {
			rs := rows.lists[ls.Kind]
			if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(rs) {
				rows.lists[ls.Kind] = append(rs[:i:i], rs[i+1:]...)
			}
			return true
		}
	}
	return false
}

func (rows *linkRows) hasPixel(id int64) bool {
	for _, p := range rows.pixels {
		if p == id {
			return true
		}
	}
	return false
}

// into adds the non-empty lists to the API payload p.
func (rows *linkRows) into(p map[string]any) {
	for _, ls := range listSpecs {
		rs := rows.lists[ls.Kind]
		if len(rs) == 0 {
			continue
		}
		out := make([]map[string]string, len(rs))
		for i, r := range rs {
			out[i] = map[string]string{ls.KeyAPI: r.Key, ls.URLAPI: r.URL}
		}
		p[ls.API] = out
	}
	if len(rows.pixels) > 0 {
		p["pixels"] = rows.pixels
	}
}

// fieldMap is linkFieldMap plus the rows' API paths, which are their
// error keys ("geotarget[1].location").
func (rows *linkRows) fieldMap() map[string]string {
	m := make(map[string]string, len(linkFieldMap)+8)
	for k, v := range linkFieldMap {
		m[k] = v
	}
	for _, ls := range listSpecs {
		m[ls.API] = ls.API
		for i := range rows.lists[ls.Kind] {
			for _, sub := range []string{ls.KeyAPI, ls.URLAPI} {
				k := fmt.Sprintf("%s[%d].%s", ls.API, i, sub)
				m[k] = k
			}
		}
	}
	return m
}

// ruleList is one list as the template shows it.
type ruleList struct {
	Kind, Title, KeyLabel, URLLabel, Hint, Err string
	KeyType                                    string // "select", "country" or "text"
	Rows                                       []ruleRow
	Options                                    []choice // of a "select" key
}

// views builds the template's lists, each row with its errors from f.
func (rows *linkRows) views(f *form) (rules []*ruleList, params *ruleList) {
	meta := map[string]ruleList{
		"geo": {Title: "Country rules", KeyLabel: "Country", URLLabel: "Goes to", KeyType: "country",
			Hint: "Visitors from a country go to its URL. A country's code (DE) or English name (Germany)."},
		"device": {Title: "Device rules", KeyLabel: "Device", URLLabel: "Goes to", KeyType: "select",
			Hint: "Visitors on a device go to its URL, when no country rule matched."},
		"lang": {Title: "Language rules", KeyLabel: "Language", URLLabel: "Goes to", KeyType: "text",
			Hint: "Visitors whose browser asks for a language (fr, pt-BR) go to its URL, when no country or device rule matched."},
		"param": {Title: "URL parameters", KeyLabel: "Name", URLLabel: "Value", KeyType: "text",
			Hint: "Added to the destination's query on every redirect (utm_source=newsletter)."},
	}
	for _, ls := range listSpecs {
		v := meta[ls.Kind]
		v.Kind, v.Err = ls.Kind, f.Err(ls.API)
		if v.KeyType == "select" {
			v.Options = deviceChoices()
		}
		for i, r := range rows.lists[ls.Kind] {
			r.N = i + 1
			r.KeyOther = v.KeyType == "select" && r.Key != "" && !hasChoice(v.Options, r.Key)
			r.KeyErr = f.Err(fmt.Sprintf("%s[%d].%s", ls.API, i, ls.KeyAPI))
			r.URLErr = f.Err(fmt.Sprintf("%s[%d].%s", ls.API, i, ls.URLAPI))
			v.Rows = append(v.Rows, r)
		}
		if ls.Kind == "param" {
			params = &v
		} else {
			rules = append(rules, &v)
		}
	}
	return rules, params
}

// deviceChoices are the device rules' options, canonical names.
func deviceChoices() []choice {
	cs := []choice{{"", "Pick a device"}}
	for _, d := range target.Devices() {
		cs = append(cs, choice{d.String(), deviceLabel(d.String())})
	}
	return cs
}

// deviceLabel is a device's name as people write it.
func deviceLabel(name string) string {
	switch name {
	case "iphone":
		return "iPhone"
	case "ipad":
		return "iPad"
	case "ipod":
		return "iPod"
	case "macos":
		return "macOS"
	case "chromeos":
		return "ChromeOS"
	case "blackberry":
		return "BlackBerry"
	case "windows phone":
		return "Windows Phone"
	}
	return strings.ToUpper(name[:1]) + name[1:]
}
