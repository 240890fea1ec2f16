package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"kurz/admin/internal/price"
	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// priceRoutes registers the price API on its own mux: its guard accepts the
// key query parameter and counts requests in the "price" window.
func (s *Server) priceRoutes() {
	s.handle(s.price, "/api/price", Methods{http.MethodGet: s.getPrice})
	s.handle(s.price, "/api/price/update", Methods{http.MethodPost: s.pushPrices})
}

// priceBody is the answer of GET /api/price (spec 2.12, plus the stale
// extension). A struct, not a map: this is the hot path.
type priceBody struct {
	Error       int         `json:"error"`
	Symbol      string      `json:"symbol"`
	Price       json.Number `json:"price"`
	Currency    string      `json:"currency"`
	LastUpdated string      `json:"last_updated"`
	Stale       bool        `json:"stale"`
}

func (s *Server) getPrice(w http.ResponseWriter, r *http.Request, _ *link.User) error {
	if s.prices == nil {
		return Errorf(http.StatusServiceUnavailable, "the price service is not configured")
	}
	sym, err := price.NormalizeSymbol(r.URL.Query().Get("symbol"))
	if err != nil {
		return fieldError(err, "")
	}
	a, err := s.prices.Get(r.Context(), sym)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("symbol " + sym)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, priceBody{
		Symbol:      a.Symbol,
		Price:       json.Number(a.Price),
		Currency:    a.Currency,
		LastUpdated: a.LastUpdated,
		Stale:       a.Stale,
	})
	return nil
}

// MaxPushTicks bounds the ticks of one POST /api/price/update.
const MaxPushTicks = 1000

// pushPrices stores operator-pushed ticks: one tick object or an array of
// them, all validated before any is stored (all or nothing).
func (s *Server) pushPrices(w http.ResponseWriter, r *http.Request, u *link.User) error {
	if !u.IsOperator {
		return Errorf(http.StatusForbidden, "pushing prices needs an operator key (user create --admin)")
	}
	if s.prices == nil {
		return Errorf(http.StatusServiceUnavailable, "the price service is not configured")
	}
	var body json.RawMessage
	if err := Decode(w, r, &body); err != nil {
		return err
	}
	ticks, err := s.parseTicks(body)
	if err != nil {
		return err
	}
	changed, err := s.prices.Update(r.Context(), ticks, price.SourcePush)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{
		"message":  fmt.Sprintf("%d ticks accepted, %d quotes updated", len(ticks), changed),
		"accepted": len(ticks),
		"updated":  changed,
	})
}

func (s *Server) parseTicks(body json.RawMessage) ([]pgstore.Quote, error) {
	now := s.now()
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '{' {
		q, err := price.ParseJSONTick(b, now)
		if err != nil {
			return nil, fieldError(err, "")
		}
		return []pgstore.Quote{q}, nil
	}
	notTicks := Errorf(http.StatusBadRequest, "request body must be a tick object or an array of tick objects")
	if len(b) == 0 || b[0] != '[' {
		return nil, notTicks
	}
	// Tick by tick, so an array of a million empty objects is refused at
	// tick 1001 instead of being decoded first.
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, notTicks
	}
	var items []json.RawMessage
	for dec.More() {
		if len(items) == MaxPushTicks {
			return nil, Errorf(http.StatusBadRequest, "request body: at most %d ticks per request", MaxPushTicks)
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, notTicks
		}
		items = append(items, item)
	}
	if len(items) == 0 {
		return nil, Errorf(http.StatusBadRequest, "request body: the array holds no ticks")
	}
	ticks := make([]pgstore.Quote, len(items))
	for i, item := range items {
		q, err := price.ParseJSONTick(item, now)
		if err != nil {
			return nil, fieldError(err, "["+strconv.Itoa(i)+"].")
		}
		ticks[i] = q
	}
	return ticks, nil
}

// fieldError turns a price validation error into a 400 naming the field,
// prefixed with the tick's position in an array body.
func fieldError(err error, prefix string) error {
	var fe *price.FieldError
	if errors.As(err, &fe) {
		return BadRequest(prefix+fe.Field, fe.Rule)
	}
	return err
}
