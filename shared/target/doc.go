// Package target is the link targeting engine: it validates and normalises
// geo, device and language rules when a link is written (admin API), and
// picks a visitor's destination when the link is followed (edge).
//
// Compile on write, match on read: Compile validates and indexes a Spec
// once, when a link enters the edge's cache; Set.Match is pure, does no I/O
// and allocates nothing. DeviceOf, ClassOf and Inspect classify a
// User-Agent in one pass over its bytes (an Aho–Corasick automaton over a
// fixed dictionary, ASCII case folded), also without allocating.
//
// # Keys
//
// Countries are ISO 3166-1 alpha-2 codes (CountryCode accepts English
// names and aliases too; CountryName gives the lowercase English name used
// as the API's details.location key). Devices are the names of the Device
// constants ("iphone", "windows phone", ...). Languages are BCP 47 tags,
// validated and canonicalised with golang.org/x/text/language
// ("en_us" -> "en-US").
//
// # Language matching
//
// Validation uses x/text, but requests do not: parsing a header and
// matching it with x/text's Matcher costs about 1.5 µs and 11 or more
// allocations (BenchmarkXTextMatcher), and the edge's hot path allocates
// nothing. Instead Compile asks x/text once per rule for the
// facts its matcher would use (canonical language, likely script and
// region, language aliases such as iw -> he, and the regions whose likely
// script differs, e.g. zh-TW -> Hant), and Match parses the header itself
// into a fixed array on the stack:
//
//   - Entries are "lang[-Script][-REGION][-...]" with an optional
//     ";q=" in RFC 9110 form (default 1). Case is ignored and "_" is read as
//     "-". "*", malformed entries and malformed q-values are ignored; only
//     the first 16 usable entries count.
//   - Entries are visited in descending q, ties in header order; the first
//     entry that fits any rule decides, even when a later entry would fit
//     some rule better.
//   - An entry fits a rule when their languages are the same after alias
//     canonicalisation (iw = he, in = id, tl = fil, nb = no, ger = de, ...)
//     and their scripts are the same, the visitor's script being explicit
//     or inferred from language and region as x/text infers it (zh-TW and
//     zh-HK are Hant, zh and zh-CN Hans; sr is Cyrl, sr-ME Latn).
//   - Among the rules an entry fits, the best has the same region as the
//     entry (explicit, or the language's likely region for whichever side
//     left it out: visitor "en" picks rule "en-US" over "en-GB", visitor
//     "pt" picks "pt-BR" over "pt-PT", visitor "en-US" picks rule "en");
//     next best is a rule whose macro-region contains the entry's region
//     (visitor "es-MX" picks "es-419" over "es-ES"); otherwise the first
//     fitting rule in rule order wins (visitor "en-GB" gets rule "en" or
//     "en-US", visitor "de-CH" rule "de").
//   - A q=0 entry means "not acceptable" (RFC 9110): a rule it names
//     exactly is never chosen.
//
// TestMatchAgreesWithXText checks these results against
// language.NewMatcher for the common cases (exact, regional fallback,
// likely region, script inference, aliases, q ordering), counting x/text's
// Low and No confidences as "no match". Known, deliberate differences:
//
//   - Regional closeness: with rules en-US, en-GB (in that order) and
//     visitor en-AU, x/text prefers en-GB (both descend from en-001), and
//     with rules es-ES, es-MX and visitor es-AR it prefers es-MX; here the
//     first rule wins. List regional variants in order of preference, or
//     use a macro-region (es-419), which is matched.
//   - Cross-language fallbacks that CLDR lists as intelligible (nb -> nn,
//     gl -> es, ...) are not matched: a rule names a language, not its
//     neighbours.
//   - x/text drops q=0 entries; here they veto the rule they name.
//
// # Precedence
//
// Set.Match tries deep links (iOS devices to the App Store URL, Android to
// the Play Store URL), then geo, then device, then language; the first
// match wins, otherwise the caller uses the link's long URL.
package target
