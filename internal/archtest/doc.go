// Package archtest holds no code: its test (arch_test.go) checks the
// import rules of docs/architecture.md ("Invariants") against `go list`,
// so that `make test` fails when a package breaks one.
package archtest
