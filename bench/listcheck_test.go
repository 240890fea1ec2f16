package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeAdmin answers GET /api/urls with list (a JSON array of rows) and GET
// /api/url/:id with single[id] as data.clicks; it checks the key and that
// the list is asked for most clicked first.
func fakeAdmin(t *testing.T, list string, single map[string]string) *apiClient {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":1,"message":"bad key"}`, http.StatusUnauthorized)
			return
		}
		switch {
		case r.URL.Path == "/api/urls":
			if r.URL.Query().Get("order") != "click" || r.URL.Query().Get("limit") != "3" {
				http.Error(w, `{"error":1,"message":"want order=click&limit=3"}`, http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, `{"error":0,"data":{"result":3,"urls":%s}}`, list)
		case strings.HasPrefix(r.URL.Path, "/api/url/"):
			n, ok := single[strings.TrimPrefix(r.URL.Path, "/api/url/")]
			if !ok {
				http.Error(w, `{"error":1,"message":"link not found"}`, http.StatusNotFound)
				return
			}
			fmt.Fprintf(w, `{"error":0,"id":1,"data":{"clicks":%s,"uniqueClicks":0}}`, n)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return newAPIClient(srv.URL, "k", 1)
}

func TestCheckListClicks(t *testing.T) {
	single := map[string]string{"1": "10000000", "2": "512", "3": "7"}
	tests := []struct {
		name       string
		list       string
		single     map[string]string
		ok         bool
		mismatches []clickMismatch
		note       string
		err        string
	}{
		{name: "agree", list: `[{"id":1,"clicks":10000000},{"id":2,"clicks":512},{"id":3,"clicks":7}]`, single: single, ok: true},
		{name: "list lags", list: `[{"id":1,"clicks":9999000},{"id":2,"clicks":512},{"id":3,"clicks":6}]`, single: single,
			mismatches: []clickMismatch{{1, 9999000, 10000000}, {3, 6, 7}}},
		{name: "no number in the list", list: `[{"id":1,"clicks":null},{"id":2,"clicks":512}]`, single: single,
			mismatches: []clickMismatch{{1, -1, 10000000}}},
		{name: "stats link not on the page", list: `[{"id":2,"clicks":512},{"id":3,"clicks":7}]`, single: single,
			note: "link 1 (the most clicked) was not on the first page"},
		{name: "empty list", list: `[]`, single: single, note: "the list page was empty"},
		{name: "single link fails", list: `[{"id":4,"clicks":1}]`, single: single, err: "link not found"},
		{name: "single link without a count", list: `[{"id":1,"clicks":1}]`, single: map[string]string{"1": `null`}, err: "is not a count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := checkListClicks(t.Context(), fakeAdmin(t, tc.list, tc.single), 3, 1)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.OK != tc.ok || c.MismatchCount != len(tc.mismatches) || !strings.Contains(c.Note, tc.note) {
				t.Fatalf("check %+v, want ok %v, %d mismatches, note %q", c, tc.ok, len(tc.mismatches), tc.note)
			}
			for i, m := range tc.mismatches {
				if c.Mismatches[i] != m {
					t.Errorf("mismatch %d = %+v, want %+v", i, c.Mismatches[i], m)
				}
			}
		})
	}
}

func TestListCheckSummary(t *testing.T) {
	c := &listCheck{Compared: 100, MismatchCount: 5, Mismatches: []clickMismatch{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}, {13, 14, 15}}, Note: "x"}
	want := "100 links compared, 5 differ; link 1: list 2 vs single 3; link 4: list 5 vs single 6; link 7: list 8 vs single 9, …; x"
	if got := c.summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
