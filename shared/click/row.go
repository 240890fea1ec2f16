package click

// RefCategory groups referrer hosts the way the stats report them
// (socialCount). Values match the Enum8 of clicks.referrer_category.
type RefCategory uint8

const (
	RefDirect        RefCategory = 0 // no Referer header
	RefOther         RefCategory = 1 // a referrer not in the table
	RefSocialNetwork RefCategory = 2
	RefMicroblog     RefCategory = 3
	RefSearchEngine  RefCategory = 4
	RefPhotoSharing  RefCategory = 5
	RefMessaging     RefCategory = 6
	RefEmail         RefCategory = 7
)

var refCategoryNames = [...]string{"direct", "other", "socialnetwork", "microblog", "searchengine", "photosharing", "messaging", "email"}

// String returns the stored name of the category.
func (c RefCategory) String() string {
	if int(c) < len(refCategoryNames) {
		return refCategoryNames[c]
	}
	return "unknown"
}

// Valid reports whether c is one of the defined categories.
func (c RefCategory) Valid() bool { return int(c) < len(refCategoryNames) }

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool { return k == KindLink || k == KindQR }

// Valid reports whether c is one of the defined classes.
func (c Class) Valid() bool { return c <= ClassPrefetch }

// Row is one row of the ClickHouse clicks table: a Hit after enrichment.
// It holds no raw IP; Visitor is a keyed hash of IP and User-Agent.
// String fields are shared (interned) strings, so rows are cheap to copy.
type Row struct {
	ClickID     uint64 // random; survives spooling so duplicates are detectable
	UnixNano    int64  // time of the visit
	Kind        Kind
	Class       Class
	RefCategory RefCategory
	LinkID      uint64
	QRID        uint64
	OwnerID     uint64
	Visitor     uint64
	Country     string // ISO 3166 alpha-2, upper case; "" when unknown
	Browser     string // e.g. "Chrome"; "Other" when not recognised
	OS          string // e.g. "Windows"; "Other" when not recognised
	Device      string // desktop, mobile, tablet, tv, bot or unknown
	RefHost     string // lower case, without "www."; "" when direct or unparsable
	Language    string // primary subtag of the preferred language, lower case; "" when none
}

// TargetID is the id the stats are keyed by: the link for KindLink, the QR
// code for KindQR.
func (r *Row) TargetID() uint64 {
	if r.Kind == KindQR {
		return r.QRID
	}
	return r.LinkID
}

// Valid reports whether the row's enum fields hold defined values, so that
// ClickHouse accepts it (a single bad value fails the whole batch).
func (r *Row) Valid() bool {
	return r.Kind.Valid() && r.Class.Valid() && r.RefCategory.Valid()
}
