package main

import "time"

// Open-loop schedule (wrk2's model, no coordinated omission). With rate R
// over N connections, connection i sends its k-th request at
//
//	start + (i + k·N)/R
//
// so that the N connections together send one request every 1/R, evenly
// interleaved. A connection that falls behind (the server is slow) sends
// the overdue requests back to back, and each one's latency is measured
// from its intended time: the queueing a real user would have seen counts.

// intendedOffset is the offset from start of request k of connection i.
func intendedOffset(i, k, conns int, rate float64) time.Duration {
	return time.Duration((float64(i) + float64(k)*float64(conns)) * float64(time.Second) / rate)
}

// openLatency is the latency of a request intended at intended, sent at
// sent and answered at done: from the intended time (what a user of an
// open system sees), plus the service time (from the actual send) and the
// scheduler lag (how late the harness itself was; large values mean the
// load generator, not the server, was behind).
func openLatency(intended, sent, done time.Time) (latency, service, lag time.Duration) {
	latency = done.Sub(intended)
	service = done.Sub(sent)
	lag = max(sent.Sub(intended), 0)
	return latency, service, lag
}
