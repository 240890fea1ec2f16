package target

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/text/language"
)

// langAlias is one row of the generated langAliasTable.
type langAlias struct{ from, to string }

// scriptException is one row of the generated scriptExceptionTable.
type scriptException struct{ lang, region, script string }

// NormalizeLang validates a languagetarget key and returns its canonical
// BCP 47 form as golang.org/x/text/language writes it: "EN_us" -> "en-US",
// "iw" -> "he", "zh-hant" -> "zh-Hant". Only language[-script][-region]
// tags are accepted: "und", "mul", private-use tags, variants and
// extensions (-u-, -x-) are rejected because the request-time matcher
// would ignore them. The error wraps ErrBadLanguage.
func NormalizeLang(key string) (string, error) {
	t, err := parseRuleTag(key)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

func parseRuleTag(key string) (language.Tag, error) {
	t, err := language.Parse(strings.TrimSpace(key))
	if err != nil {
		return language.Tag{}, fmt.Errorf("%w %q: not a BCP 47 language tag", ErrBadLanguage, key)
	}
	base, conf := t.Base()
	if conf != language.Exact || base.String() == "und" || base.String() == "mul" ||
		base.String() == "zxx" || base.IsPrivateUse() {
		return language.Tag{}, fmt.Errorf("%w %q: no specific language", ErrBadLanguage, key)
	}
	if len(t.Variants()) > 0 || len(t.Extensions()) > 0 {
		return language.Tag{}, fmt.Errorf("%w %q: use language[-script][-region] only", ErrBadLanguage, key)
	}
	return t, nil
}

// langRule is a languagetarget rule prepared for matching: every subtag
// packed into a uint32 and x/text's likely-subtag answers for it computed
// once, so matching a visitor tag is a handful of integer compares.
type langRule struct {
	url       string
	lang      uint32 // canonical primary language subtag
	script    uint32 // script of the rule tag, explicit or likely (zh-TW -> Hant)
	region    uint32 // region of the rule tag, explicit or likely (en -> US)
	defScript uint32 // likely script of the bare language (zh -> Hans)
	defRegion uint32 // likely region of the bare language (pt -> BR)
	// ext is nil for most rules: the edge caches a Set per targeted link, and
	// three empty slice headers per rule were a third of a Set's memory.
	ext *langExt
}

// langExt holds what only some languages or regions need.
type langExt struct {
	aliases  []uint32 // visitor subtags x/text canonicalises to lang ("iw" for "he")
	byRegion []regionScript
	within   []uint32 // countries inside a macro-region rule (es-419: MX, AR, ...)
}

// regionScript records that lang-region implies a non-default script.
type regionScript struct{ region, script uint32 }

func compileLang(t language.Tag, url string) langRule {
	base, _ := t.Base()
	bare, _ := language.Compose(base)
	script, _ := t.Script()
	region, _ := t.Region()
	defScript, _ := bare.Script()
	defRegion, _ := bare.Region()
	r := langRule{
		url:       url,
		lang:      packLower(base.String()),
		script:    packLower(script.String()),
		region:    packUpper(region.String()),
		defScript: packLower(defScript.String()),
		defRegion: packUpper(defRegion.String()),
	}
	var x langExt
	for _, a := range langAliasTable {
		if a.to == base.String() {
			x.aliases = append(x.aliases, packLower(a.from))
		}
	}
	i, _ := slices.BinarySearchFunc(scriptExceptionTable[:], base.String(),
		func(e scriptException, lang string) int { return cmp.Compare(e.lang, lang) })
	for ; i < len(scriptExceptionTable) && scriptExceptionTable[i].lang == base.String(); i++ {
		e := scriptExceptionTable[i]
		x.byRegion = append(x.byRegion, regionScript{packUpper(e.region), packLower(e.script)})
	}
	if region.IsGroup() {
		for _, c := range countryTable {
			if cr, err := language.ParseRegion(c.code); err == nil && region.Contains(cr) {
				x.within = append(x.within, packUpper(c.code))
			}
		}
	}
	if x.aliases != nil || x.byRegion != nil || x.within != nil {
		r.ext = &x
	}
	return r
}

// noExt stands in for a nil langRule.ext, so score needs no nil checks.
var noExt = &langExt{}

func (r *langRule) extra() *langExt {
	if r.ext == nil {
		return noExt
	}
	return r.ext
}

// memSize is the bytes r holds beyond its own struct.
func (r *langRule) memSize() int {
	n := len(r.url)
	if x := r.ext; x != nil {
		n += int(unsafe.Sizeof(*x)) + cap(x.aliases)*4 + cap(x.byRegion)*8 + cap(x.within)*4
	}
	return n
}

// score rates how well visitor tag v fits the rule: 0 no match, 1 same
// language and script, 2 the rule's macro-region (es-419) contains the
// visitor's region, 3 the same (explicit or likely) region.
// Scripts must agree as x/text would infer them: a zh-CN reader does not
// get a zh-Hant page (x/text rates that Low; see the package doc).
func (r *langRule) score(v *visitorTag) int {
	x := r.extra()
	if v.lang != r.lang && !slices.Contains(x.aliases, v.lang) {
		return 0
	}
	script := v.script
	if script == 0 {
		script = r.defScript
		for _, e := range x.byRegion {
			if e.region == v.region {
				script = e.script
				break
			}
		}
	}
	if script != r.script {
		return 0
	}
	region := v.region
	if region == 0 && script == r.defScript {
		region = r.defRegion
	}
	switch {
	case region != 0 && region == r.region:
		return 3
	case region != 0 && slices.Contains(x.within, region):
		return 2
	}
	return 1
}

// matchLang picks the rule for an Accept-Language header: visitor tags are
// tried in descending q (ties keep header order) and the first tag that
// fits any rule decides; among the rules it fits, the best score wins, then
// rule order. A rule that a q=0 entry names exactly is never chosen.
func matchLang(rules []langRule, header []byte) (string, bool) {
	if len(rules) == 0 || len(header) == 0 {
		return "", false
	}
	var al acceptList
	al.parse(header)
	for i := 0; i < al.n && al.tags[i].q > 0; i++ {
		best, bestScore := -1, 0
		for j := range rules {
			if s := rules[j].score(&al.tags[i]); s > bestScore && !al.refuses(&rules[j]) {
				best, bestScore = j, s
				if s == 3 {
					break
				}
			}
		}
		if best >= 0 {
			return rules[best].url, true
		}
	}
	return "", false
}

// packLower packs up to four ASCII letters, lower-cased, into a uint32;
// packUpper does the same upper-cased. Digits pass unchanged ("419").
func packLower(s string) uint32 {
	var k uint32
	for i := 0; i < len(s) && i < 4; i++ {
		k = k<<8 | uint32(lower(s[i]))
	}
	return k
}

func packUpper(s string) uint32 {
	var k uint32
	for i := 0; i < len(s) && i < 4; i++ {
		k = k<<8 | uint32(upper(s[i]))
	}
	return k
}
