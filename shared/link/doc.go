// Package link is kurz's domain model: accounts, branded domains, links and
// the records around them, plus the sentinel errors every store returns.
// It imports only the standard library so that every other package,
// including the stores, can depend on it without cycles.
package link
