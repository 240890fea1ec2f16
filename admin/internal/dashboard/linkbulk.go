package dashboard

import (
	"net/http"
	"net/url"
	"strconv"

	"kurz/shared/link"
)

// Bulk delete of links: the table's checkboxes lead to a confirmation page
// (GET /links/delete?id=…) that lists what will be deleted; its form posts
// the same ids with the CSRF token. The deletion is the API's DeleteLinks,
// what DELETE /api/url/:id/delete calls, in one transaction: when any id
// is not the user's (another user's, unknown, deleted meanwhile) nothing
// is deleted and the answer is the 404 page.

// maxBulk bounds the ids of one bulk delete: four table pages.
const maxBulk = 4 * linksPerPage

// bulkData is the confirmation page's.
type bulkData struct {
	Rows  []linkRow
	Query []queryField // the table's search, order and filters, kept
	Back  string       // the table they lead back to
}

func (s *Server) bulkDeletePage(w http.ResponseWriter, r *http.Request, c *call) error {
	v := r.URL.Query()
	q, err := parseLinkQuery(v)
	if err != nil {
		return err
	}
	ids, err := bulkIDs(v)
	if err != nil {
		return err
	}
	d := bulkData{Query: q.fields(), Back: q.tableURL()}
	if len(ids) > 0 {
		links, err := s.store.LinksByIDs(r.Context(), c.user.ID, ids)
		if err != nil {
			return err
		}
		if len(links) != len(ids) {
			return errNotFound // one is not the user's: the page names none
		}
		for i := range links {
			d.Rows = append(d.Rows, s.rowOf(&links[i]))
		}
	}
	title := "Delete links"
	if len(d.Rows) == 1 {
		title = "Delete a link"
	}
	s.render(w, r, c, http.StatusOK, "linkbulkdelete", title, d)
	return nil
}

func (s *Server) bulkDelete(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := parseLinkQuery(r.PostForm)
	if err != nil {
		return err
	}
	ids, err := bulkIDs(r.PostForm)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return errBadQuery("No link was picked to delete.")
	}
	if err := s.api.DeleteLinks(r.Context(), c.user, ids); err != nil {
		return err // not all the user's: link.ErrNotFound, the 404 page, nothing deleted
	}
	text := "1 link deleted."
	if len(ids) > 1 {
		text = strconv.Itoa(len(ids)) + " links deleted."
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: text})
	http.Redirect(w, r, q.tableURL(), http.StatusSeeOther)
	return nil
}

// bulkIDs reads the id values, without repeats. A malformed id is the 404
// page, as in a path.
func bulkIDs(v url.Values) ([]int64, error) {
	raw := v["id"]
	if len(raw) > maxBulk {
		return nil, errBadQuery("At most " + strconv.Itoa(maxBulk) + " links can be deleted at once.")
	}
	seen := make(map[int64]bool, len(raw))
	var ids []int64
	for _, s := range raw {
		id, ok := link.ParseID(s)
		if !ok {
			return nil, errNotFound
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}
