package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// listCheck is issue 15's "list clicks and single-link clicks always
// equal once the pipeline has flushed": the owner's most-clicked links as
// one page of GET /api/urls?order=click shows them, each compared with
// GET /api/url/:id's data.clicks. `bench stats` runs it after timing, so
// every click the runs caused (and the synthetic ones) has long been in
// ClickHouse: a difference is a real disagreement, not a lag.
type listCheck struct {
	Compared      int             `json:"compared"`
	MismatchCount int             `json:"mismatch_count"`
	Mismatches    []clickMismatch `json:"mismatches,omitempty"` // the first 10
	// HasLink says the stats link (the owner's most clicked) was on the
	// page: without it the page did not show the links that matter.
	HasLink bool   `json:"has_stats_link"`
	OK      bool   `json:"ok"`
	Note    string `json:"note,omitempty"`
}

// clickMismatch is one link whose two numbers differ; List is -1 when the
// list row had no number.
type clickMismatch struct {
	ID     int64 `json:"id"`
	List   int64 `json:"list"`
	Single int64 `json:"single"`
}

// checkListClicks reads one list page of at most limit links, most
// clicked first, and compares each row with the single-link answer.
func checkListClicks(ctx context.Context, api *apiClient, limit int, statsLink int64) (*listCheck, error) {
	var page struct {
		Data struct {
			URLs []struct {
				ID     int64        `json:"id"`
				Clicks *json.Number `json:"clicks"`
			} `json:"urls"`
		} `json:"data"`
	}
	if err := api.call(ctx, http.MethodGet, "/api/urls?order=click&limit="+strconv.Itoa(limit), nil, &page); err != nil {
		return nil, fmt.Errorf("list check: %w", err)
	}
	c := &listCheck{}
	for _, row := range page.Data.URLs {
		single, err := singleLinkClicks(ctx, api, row.ID)
		if err != nil {
			return nil, fmt.Errorf("list check: %w", err)
		}
		list := int64(-1)
		if row.Clicks != nil {
			if n, err := row.Clicks.Int64(); err == nil {
				list = n
			}
		}
		c.Compared++
		c.HasLink = c.HasLink || row.ID == statsLink
		if list != single {
			c.MismatchCount++
			if len(c.Mismatches) < 10 {
				c.Mismatches = append(c.Mismatches, clickMismatch{ID: row.ID, List: list, Single: single})
			}
		}
	}
	switch {
	case c.Compared == 0:
		c.Note = "the list page was empty"
	case !c.HasLink:
		c.Note = fmt.Sprintf("link %d (the most clicked) was not on the first page of order=click", statsLink)
	}
	c.OK = c.Compared > 0 && c.HasLink && c.MismatchCount == 0
	return c, nil
}

func singleLinkClicks(ctx context.Context, api *apiClient, id int64) (int64, error) {
	var body struct {
		Data struct {
			Clicks json.Number `json:"clicks"`
		} `json:"data"`
	}
	if err := api.call(ctx, http.MethodGet, "/api/url/"+strconv.FormatInt(id, 10), nil, &body); err != nil {
		return 0, err
	}
	n, err := body.Data.Clicks.Int64()
	if err != nil {
		return 0, fmt.Errorf("GET /api/url/%d: data.clicks %q is not a count", id, body.Data.Clicks)
	}
	return n, nil
}

// summary is the check in one line.
func (c *listCheck) summary() string {
	return joinNote(c.measured(), c.details())
}

func (c *listCheck) measured() string {
	return fmt.Sprintf("%d links compared, %d differ", c.Compared, c.MismatchCount)
}

// details names the first differing links and the note.
func (c *listCheck) details() string {
	var s string
	for i, m := range c.Mismatches {
		if i == 3 {
			s += ", …"
			break
		}
		s = joinNote(s, fmt.Sprintf("link %d: list %d vs single %d", m.ID, m.List, m.Single))
	}
	return joinNote(s, c.Note)
}
