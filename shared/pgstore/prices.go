package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Quote is one price of a symbol at a point in time: a received tick, or
// the latest quote stored per symbol. Price is the canonical decimal text
// (digits, optional '.' and fraction, no exponent); it is never converted
// to a binary float.
type Quote struct {
	Symbol    string
	Price     string
	Currency  string
	QuotedAt  time.Time
	UpdatedAt time.Time // when kurz stored it; zero on incoming ticks
}

// Quote loads the latest quote of symbol (already normalised); an unknown
// symbol is link.ErrNotFound.
func (s *Store) Quote(ctx context.Context, symbol string) (Quote, error) {
	var q Quote
	err := s.pool.QueryRow(ctx, `SELECT symbol, price::text, currency, quoted_at, updated_at
		FROM prices WHERE symbol = $1`, symbol).Scan(&q.Symbol, &q.Price, &q.Currency, &q.QuotedAt, &q.UpdatedAt)
	if err != nil {
		return Quote{}, fmt.Errorf("quote %q: %w", symbol, mapErr(err))
	}
	q.QuotedAt, q.UpdatedAt = q.QuotedAt.UTC(), q.UpdatedAt.UTC()
	return q, nil
}

// UpsertQuotes stores the ticks as latest quotes in one transaction and
// returns the quotes it actually changed. A tick replaces the stored quote
// only when it is strictly newer, so replays and out-of-order ticks never
// move a quote back in time. The ticks may name a symbol more than once;
// the newest wins (the first of equal times, as in the database).
func (s *Store) UpsertQuotes(ctx context.Context, ticks []Quote) ([]Quote, error) {
	latest := newestPerSymbol(ticks)
	if len(latest) == 0 {
		return nil, nil
	}
	symbols := make([]string, len(latest))
	prices := make([]string, len(latest))
	currencies := make([]string, len(latest))
	times := make([]time.Time, len(latest))
	for i, q := range latest {
		symbols[i], prices[i], currencies[i], times[i] = q.Symbol, q.Price, q.Currency, q.QuotedAt
	}
	var changed []Quote
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			INSERT INTO prices AS p (symbol, price, currency, quoted_at)
			SELECT * FROM unnest($1::text[], $2::text[]::numeric[], $3::text[], $4::timestamptz[])
			ON CONFLICT (symbol) DO UPDATE SET
				price = EXCLUDED.price, currency = EXCLUDED.currency,
				quoted_at = EXCLUDED.quoted_at, updated_at = now()
			WHERE p.quoted_at < EXCLUDED.quoted_at
			RETURNING symbol, price::text, currency, quoted_at, updated_at`,
			symbols, prices, currencies, times)
		if err != nil {
			return mapErr(err)
		}
		changed, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Quote, error) {
			var q Quote
			err := row.Scan(&q.Symbol, &q.Price, &q.Currency, &q.QuotedAt, &q.UpdatedAt)
			q.QuotedAt, q.UpdatedAt = q.QuotedAt.UTC(), q.UpdatedAt.UTC()
			return q, err
		})
		return mapErr(err)
	})
	if err != nil {
		return nil, fmt.Errorf("upsert %d quotes: %w", len(latest), err)
	}
	return changed, nil
}

// newestPerSymbol keeps one tick per symbol: ON CONFLICT DO UPDATE may not
// touch the same row twice in one statement.
func newestPerSymbol(ticks []Quote) []Quote {
	idx := make(map[string]int, len(ticks))
	out := make([]Quote, 0, len(ticks))
	for _, q := range ticks {
		i, seen := idx[q.Symbol]
		switch {
		case !seen:
			idx[q.Symbol] = len(out)
			out = append(out, q)
		case out[i].QuotedAt.Before(q.QuotedAt):
			out[i] = q
		}
	}
	return out
}
