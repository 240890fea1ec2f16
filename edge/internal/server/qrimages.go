package server

import (
	"fmt"

	"github.com/dgraph-io/ristretto/v2"
)

// imageCache holds rendered QR images by their full rendering key.
type imageCache struct {
	c *ristretto.Cache[string, *qrImage]
}

type qrImage struct {
	body  []byte
	etag  string
	ctype string
}

func newImageCache(maxCost int64) (*imageCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, *qrImage]{
		NumCounters: 1e5, MaxCost: maxCost, BufferItems: 64, IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, fmt.Errorf("image cache: %w", err)
	}
	return &imageCache{c: c}, nil
}

func (i *imageCache) close() { i.c.Close() }
