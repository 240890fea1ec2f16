package pgstore

// PlainLinkSQL lets the external tests check the dedupe lookup's plan.
const PlainLinkSQL = plainLinkSQL
