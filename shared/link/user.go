package link

import "time"

// TimeLayout is the spec's timestamp form (always UTC).
const TimeLayout = "2006-01-02 15:04:05"

// DateLayout is the spec's date form for channel items.
const DateLayout = "2006-01-02"

// User is an account.
type User struct {
	ID         int64
	Email      string
	Username   string
	Avatar     string
	Plan       string
	RateLimit  *int // requests per minute; nil = plan default, 0 = unlimited
	IsOperator bool
	ExpiresAt  *time.Time
	CreatedAt  time.Time
}

// Expired reports whether the account (and so its key) has expired at now.
func (u *User) Expired(now time.Time) bool {
	return u.ExpiresAt != nil && !now.Before(*u.ExpiresAt)
}

// FormatTime renders t in the spec's UTC form; the zero time renders as "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeLayout)
}

// FormatTimePtr renders t like FormatTime; nil renders as "".
func FormatTimePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return FormatTime(*t)
}

// ParseTime parses the spec's timestamp form as UTC. A bare date
// (YYYY-MM-DD) means the last second of that day in UTC, so "expires on
// the 31st" still works on the 31st.
func ParseTime(s string) (time.Time, error) {
	if len(s) == len(DateLayout) {
		d, err := time.ParseInLocation(DateLayout, s, time.UTC)
		if err != nil {
			return time.Time{}, err
		}
		return d.Add(24*time.Hour - time.Second), nil
	}
	return time.ParseInLocation(TimeLayout, s, time.UTC)
}
