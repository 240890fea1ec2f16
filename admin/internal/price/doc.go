// Package price serves and feeds the market price API: validation of
// symbols, prices, currencies and tick times; the Service that answers
// lookups from a ristretto cache in front of PostgreSQL and applies updates
// (latest quote in PostgreSQL, every tick appended to ClickHouse); the
// parser of import files; and the poller that fetches quotes from an
// upstream HTTP-JSON vendor.
//
// Invariant: prices stay decimal text from input to output. No code path
// turns a price into a float64, so 189.25 is never answered as
// 189.24999999.
package price
