package chstore

import "strings"

// SplitStatements splits a migration file into statements on semicolons
// outside string literals and comments. Comments are dropped, so pieces
// that held only comments or whitespace disappear.
func SplitStatements(src string) []string {
	var (
		stmts []string
		cur   strings.Builder
	)
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			stmts = append(stmts, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			cur.WriteByte('\n')
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = len(src)
			} else {
				i += 2 + end + 1
			}
			cur.WriteByte(' ')
		case c == '\'' || c == '"' || c == '`':
			j := quotedEnd(src, i)
			cur.WriteString(src[i:j])
			i = j - 1
		case c == ';':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return stmts
}

// quotedEnd returns the index just past the quoted literal starting at
// src[start], honouring backslash escapes and doubled quotes.
func quotedEnd(src string, start int) int {
	q := src[start]
	for i := start + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			if i+1 < len(src) && src[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(src)
}
