package chstore

import (
	"fmt"

	"kurz/shared/click"
	"kurz/shared/link"
)

// Helpers of every click read, here and in the admin's stats service.

// KindName is the Enum8 name of k in the ClickHouse tables.
func KindName(k click.Kind) (string, error) {
	switch k {
	case click.KindLink:
		return "link", nil
	case click.KindQR:
		return "qr", nil
	}
	return "", fmt.Errorf("chstore: unknown click kind %d", k)
}

// Unavailable marks a ClickHouse failure of the read what so callers
// answer 503 rather than 500: the numbers exist, they just cannot be read
// right now. The result wraps link.ErrUnavailable.
func Unavailable(what string, err error) error {
	return fmt.Errorf("%s: %w: %v", what, link.ErrUnavailable, err)
}
